/// `redis://[:PASSWORD@]HOST:PORT` (also `redis://HOST`, port 6379; an IPv6 host in brackets).
public struct RedisURL: Equatable, Sendable {
  public var host: String
  public var port: Int
  public var password: String?

  public struct Invalid: Error, CustomStringConvertible, Sendable {
    public let description: String
  }

  public init(_ text: String) throws {
    guard text.hasPrefix("redis://") else { throw Invalid(description: "'\(text)' does not start with redis://") }
    var rest = Substring(text.dropFirst("redis://".count))
    // The password ends at the last '@', so it may hold '@', ':' and '/'; a path comes after.
    let at = rest.lastIndex(of: "@")
    if let slash = rest[(at ?? rest.startIndex)...].firstIndex(of: "/") {
      // A database number means nothing to pub/sub; only "/" or "/0" is accepted.
      let db = rest[rest.index(after: slash)...]
      guard db.isEmpty || db == "0" else {
        throw Invalid(description: "a database number does not separate pub/sub: use --redis-prefix")
      }
      rest = rest[..<slash]
    }
    if let at {
      let auth = rest[..<at]
      guard auth.hasPrefix(":"), auth.count > 1 else {
        throw Invalid(description: "credentials must be ':PASSWORD@' (Redis ACL users are not supported)")
      }
      password = String(auth.dropFirst())
      rest = rest[rest.index(after: at)...]
    }
    var hostPart = rest
    var portPart: Substring = "6379"
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { throw Invalid(description: "unclosed [ in '\(text)'") }
      hostPart = rest[rest.index(after: rest.startIndex)..<close]
      let after = rest[rest.index(after: close)...]
      if after.hasPrefix(":") {
        portPart = after.dropFirst()
      } else if !after.isEmpty {
        throw Invalid(description: "unexpected '\(after)' after the host")
      }
    } else if let colon = rest.lastIndex(of: ":") {
      hostPart = rest[..<colon]
      portPart = rest[rest.index(after: colon)...]
      guard !hostPart.contains(":") else {
        throw Invalid(description: "an IPv6 address goes in brackets: redis://[::1]:6379")
      }
    }
    guard !hostPart.isEmpty else { throw Invalid(description: "no host in '\(text)'") }
    guard let port = Int(portPart), (1...65535).contains(port) else {
      throw Invalid(description: "bad port '\(portPart)' in '\(text)'")
    }
    host = String(hostPart)
    self.port = port
  }
}

#if canImport(Glibc)
  import Glibc
#endif

extension RedisURL {
  /// The host as a numeric address (a name is resolved now, once: the service thread never
  /// waits for a name server).
  public func resolvedAddress() throws -> String {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var result: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, String(port), &hints, &result)
    guard rc == 0, let first = result else {
      throw Invalid(description: "cannot resolve '\(host)': \(String(cString: gai_strerror(rc)))")
    }
    defer { freeaddrinfo(result) }
    var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
    guard
      getnameinfo(
        first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
    else { throw Invalid(description: "cannot resolve '\(host)'") }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

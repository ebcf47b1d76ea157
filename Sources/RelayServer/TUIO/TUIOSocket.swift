import CSocket

#if canImport(Glibc)
  import Glibc
#endif

/// The UDP socket TUIO senders send to: our own (not lws 4.1's UDP helper, which keeps only
/// the first bytes of an IPv6 sender's address), non-blocking, bound before the service thread
/// starts so a bad address is a start-up error.
struct TUIOSocket {
  let fd: Int32
  let port: Int

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// `spec` is `PORT`, `HOST:PORT` or `[V6]:PORT`; without a host, `defaultHost` (`--host`).
  static func bind(_ spec: String, defaultHost: String) throws -> TUIOSocket {
    let (host, portText) = split(spec, defaultHost: defaultHost)
    guard let port = Int(portText), (0...65535).contains(port) else {
      throw Failure(description: "--tuio-udp '\(spec)': the port must be a number from 0 to 65535")
    }
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
    var list: UnsafeMutablePointer<addrinfo>?
    let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    let rc = getaddrinfo(bare, String(port), &hints, &list)
    guard rc == 0, let first = list else {
      throw Failure(description: "--tuio-udp '\(spec)': cannot resolve '\(bare)': \(String(cString: gai_strerror(rc)))")
    }
    defer { freeaddrinfo(list) }
    let fd = socket(
      first.pointee.ai_family,
      Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "--tuio-udp: socket: \(String(cString: strerror(errno)))") }
    if first.pointee.ai_family == AF_INET6 {
      // `::` takes IPv4 senders too, as the WebSocket listener on `::` does.
      var off: Int32 = 0
      setsockopt(fd, tr_ipproto_ipv6(), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
    }
    // A burst of bundles from many senders waits in the kernel until the loop reads it.
    var buffer: Int32 = 1 << 20
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, socklen_t(MemoryLayout<Int32>.size))
    guard Glibc.bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
      let why = String(cString: strerror(errno))
      close(fd)
      throw Failure(description: "--tuio-udp '\(spec)': cannot bind: \(why)")
    }
    var bound = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &bound) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return TUIOSocket(fd: fd, port: Self.port(of: bound) ?? port)
  }

  private static func split(_ spec: String, defaultHost: String) -> (String, String) {
    if spec.hasPrefix("["), let end = spec.firstRange(of: "]:") {
      return (String(spec[..<end.lowerBound].dropFirst()), String(spec[end.upperBound...]))
    }
    let colons = spec.filter { $0 == ":" }.count
    if colons == 1, let i = spec.lastIndex(of: ":") {
      return (String(spec[..<i]), String(spec[spec.index(after: i)...]))
    }
    return (defaultHost, spec)
  }

  static func port(of a: sockaddr_storage) -> Int? {
    let family = Int32(a.ss_family)
    return withUnsafePointer(to: a) { p -> Int? in
      switch family {
      case AF_INET:
        return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
      case AF_INET6:
        return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
      default: return nil
      }
    }
  }

  /// The sender's address as text (IPv4-mapped IPv6 addresses as IPv4) and its port.
  static func sender(_ a: sockaddr_storage) -> (host: String, port: Int) {
    let family = Int32(a.ss_family)
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    withUnsafePointer(to: a) { p in
      switch family {
      case AF_INET:
        p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { s in
          var addr = s.pointee.sin_addr
          _ = inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
        }
      case AF_INET6:
        p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { s in
          var addr = s.pointee.sin6_addr
          _ = inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
        }
      default: break
      }
    }
    let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let shown = host.hasPrefix("::ffff:") && host.contains("." as Character) ? String(host.dropFirst(7)) : host
    return (shown.isEmpty ? "?" : shown, port(of: a) ?? 0)
  }
}

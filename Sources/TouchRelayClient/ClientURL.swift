/// The parts of a `ws://`, `wss://`, `http://` or `https://` URL this client needs.
/// Deliberately small: no userinfo.
public struct ClientURL: Sendable, Equatable {
  public var scheme: String
  /// A name or an address; an IPv6 address without its URL brackets (`::1`).
  public var host: String
  public var port: Int
  /// Path plus query, as sent in the request line (`/v1/observe/s1?raw=1`).
  public var target: String

  /// The `Host` header value; libwebsockets refuses an upgrade without one.
  public var hostHeader: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

  public init(scheme: String = "ws", host: String, port: Int, target: String = "/") {
    self.scheme = scheme
    self.host = host
    self.port = port
    self.target = target
  }

  public init(_ string: String) throws(WebSocketClientError) {
    guard let schemeEnd = string.range(of: "://") else { throw .badURL(string) }
    let scheme = string[..<schemeEnd.lowerBound].lowercased()
    let defaultPort: Int
    switch scheme {
    case "ws", "http": defaultPort = 80
    case "wss", "https": defaultPort = 443
    default: throw .badURL(string)
    }
    let rest = string[schemeEnd.upperBound...]
    let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    var target = String(rest[authorityEnd...])
    if target.isEmpty { target = "/" } else if target.first == "?" { target = "/" + target }
    let host: Substring
    let port: Int
    if authority.first == "[" {
      // An IPv6 literal: `[::1]` or `[::1]:8080`.
      guard let close = authority.firstIndex(of: "]") else { throw .badURL(string) }
      host = authority[authority.index(after: authority.startIndex)..<close]
      let after = authority[authority.index(after: close)...]
      if after.isEmpty {
        port = defaultPort
      } else {
        guard after.first == ":", let p = Int(after.dropFirst()), (0...65535).contains(p) else { throw .badURL(string) }
        port = p
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = authority[..<colon]
      guard let p = Int(authority[authority.index(after: colon)...]), (0...65535).contains(p) else {
        throw .badURL(string)
      }
      port = p
    } else {
      host = authority
      port = defaultPort
    }
    guard !host.isEmpty else { throw .badURL(string) }
    self.init(scheme: scheme, host: String(host), port: port, target: target)
  }

  /// True for `wss` and `https`: the connection starts with a TLS handshake.
  public var isTLS: Bool { scheme == "wss" || scheme == "https" }

  /// The same server with another target, e.g. `url.with(target: "/healthz")`.
  public func with(target: String) -> ClientURL {
    var copy = self
    copy.target = target
    return copy
  }

  public var description: String { "\(scheme)://\(host):\(port)\(target)" }
}

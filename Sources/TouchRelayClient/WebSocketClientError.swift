public enum WebSocketClientError: Error, Sendable, CustomStringConvertible {
  case badURL(String)
  /// The server answered the upgrade request with something other than 101.
  case upgradeRefused(HTTPResponse)
  /// A 101 whose `Sec-WebSocket-Accept` did not match, or another handshake failure.
  case handshakeFailed(String)
  case timeout(String)
  /// The connection is closed and every message received before has been consumed.
  case closed(code: UInt16, reason: String)
  /// `next` was called while another `next` on the same connection was still waiting.
  case concurrentReceive
  /// The message was not JSON (or not the JSON expected).
  case notJSON(String)

  public var description: String {
    switch self {
    case .badURL(let s): return "bad URL '\(s)'"
    case .upgradeRefused(let r): return "upgrade refused: HTTP \(r.status) \(r.text.prefix(200))"
    case .handshakeFailed(let why): return "WebSocket handshake failed: \(why)"
    case .timeout(let what): return "timed out \(what)"
    case .closed(let code, let reason): return "connection closed (\(code)) \(reason)"
    case .concurrentReceive: return "next() called concurrently on one connection"
    case .notJSON(let s): return "not JSON: \(s.prefix(200))"
    }
  }

  /// The HTTP status of a refused upgrade, nil for any other error.
  public var refusedStatus: Int? {
    if case .upgradeRefused(let r) = self { return r.status }
    return nil
  }
}

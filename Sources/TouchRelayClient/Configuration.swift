import NIOCore
import TouchProtocol

/// How a connection is opened and how it behaves.
public struct WebSocketConfiguration: Sendable {
  /// Offered in `Sec-WebSocket-Protocol`; empty sends no such header.
  public var subprotocols: [String] = [TouchProtocol.protocolName]
  /// Extra request headers, sent after the handshake's own.
  public var headers: [(String, String)] = []
  /// Overrides the `Host` header; `.some(nil)` omits it (to test a server's refusal).
  public var hostHeader: String?? = nil
  public var connectTimeout: TimeAmount = .seconds(5)
  /// TCP connect plus the HTTP upgrade.
  public var handshakeTimeout: TimeAmount = .seconds(5)
  /// Largest single frame and largest reassembled message accepted from the server.
  public var maxFrameSize: Int = 1 << 24
  public var maxMessageSize: Int = 1 << 24
  /// Answer the server's pings with pongs (and do not report the pings).
  public var autoPong: Bool = true
  /// False once upgraded: the socket is never read until `resumeReading()`; a slow
  /// observer that never reads, for back-pressure tests.
  public var autoRead: Bool = true
  /// SO_RCVBUF before connecting; small values make a non-reading peer back up sooner.
  public var receiveBufferSize: Int? = nil
  public var noDelay: Bool = true

  public init() {}

  /// The default configuration with other subprotocols (`[]` for none).
  public static func subprotocols(_ list: [String]) -> WebSocketConfiguration {
    var c = WebSocketConfiguration()
    c.subprotocols = list
    return c
  }
}

/// What the callback of a high-throughput connection receives, on the channel's event loop.
public enum WebSocketEvent: Sendable {
  /// A whole text message (fragments already joined), as bytes: no String is made.
  case text(ByteBuffer)
  case binary(ByteBuffer)
  /// Reported only when `autoPong` is off.
  case ping(ByteBuffer)
  case pong(ByteBuffer)
  /// The server's close frame (1005 when it carried no code), or 1006 when the connection
  /// ended without one. Always the last event, delivered exactly once.
  case closed(code: UInt16, reason: String)
}

/// What `next` returns.
public enum Received: Sendable, Equatable, CustomStringConvertible {
  case text(String)
  case binary([UInt8])
  /// Only when `autoPong` is off.
  case ping([UInt8])
  case pong([UInt8])
  /// See `WebSocketEvent.closed`.
  case close(code: UInt16, reason: String)

  public var text: String? {
    if case .text(let s) = self { return s }
    return nil
  }

  public var description: String {
    switch self {
    case .text(let s): return "text(\(s.prefix(300)))"
    case .binary(let b): return "binary(\(b.count) bytes)"
    case .ping(let b): return "ping(\(b.count) bytes)"
    case .pong(let b): return "pong(\(b.count) bytes)"
    case .close(let code, let reason): return "close(\(code), \(reason))"
    }
  }

  init(_ event: WebSocketEvent) {
    switch event {
    case .text(let b): self = .text(String(buffer: b))
    case .binary(let b): self = .binary(Array(b.readableBytesView))
    case .ping(let b): self = .ping(Array(b.readableBytesView))
    case .pong(let b): self = .pong(Array(b.readableBytesView))
    case .closed(let code, let reason): self = .close(code: code, reason: reason)
    }
  }
}

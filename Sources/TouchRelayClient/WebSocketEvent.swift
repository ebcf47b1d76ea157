import NIOCore

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

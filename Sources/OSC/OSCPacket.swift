/// What one datagram carries: a message or a bundle of them.
public enum OSCPacket: Sendable, Equatable {
  case message(OSCMessage)
  case bundle(OSCBundle)

  /// The messages in order (one for a message).
  public var messages: [OSCMessage] {
    switch self {
    case .message(let m): return [m]
    case .bundle(let b): return b.messages
    }
  }
}

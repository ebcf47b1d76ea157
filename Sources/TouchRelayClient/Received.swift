import NIOCore

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

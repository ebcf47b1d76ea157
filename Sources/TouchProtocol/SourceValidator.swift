/// The per-source ordering rules of the protocol, kept apart from any socket: `hello` before
/// anything else, `seq` strictly increasing, `t` never going backwards. A rejected frame
/// leaves the state as it was, so one bad frame does not poison the ones after it.
public struct SourceValidator: Sendable {
  /// Whether a hello came. A flag, not the hello: the validator is copied per frame.
  public private(set) var saidHello = false
  public private(set) var lastSeq: Int64?
  public private(set) var lastT: Double?

  public init() {}

  /// Accepts or rejects a decoded source message, updating the state when accepted.
  public mutating func accept(_ message: ClientMessage) -> ProtocolError? {
    switch message {
    case .hello:
      saidHello = true
      return nil
    case .control:
      return !saidHello ? ProtocolError(.noHello, "send 'hello' before 'control'") : nil
    case .frame(let f):
      guard saidHello else {
        return ProtocolError(.noHello, "send 'hello' before any 'frame'", seq: f.seq)
      }
      return accept(sample: f)
    case .frames:
      // The samples are judged one by one, with `accept(sample:)`.
      return !saidHello ? ProtocolError(.noHello, "send 'hello' before any 'frames'") : nil
    }
  }

  /// Accepts or rejects one frame (a `frame` message, or one sample of a `frames` message) of
  /// a source that said hello, updating the state when accepted.
  public mutating func accept(sample f: Frame) -> ProtocolError? {
    takes(f) ? nil : rejection(of: f)
  }

  /// `accept(sample:)` without the error: true, and the state updated, for a frame it
  /// accepts; false, and nothing changed, for one it refuses (`rejection(of:)` says why). The
  /// server's check of every frame: an optional error is destroyed through its type's value
  /// witness even when it is nil.
  public mutating func takes(_ f: Frame) -> Bool {
    if let last = lastSeq, f.seq <= last { return false }
    if let last = lastT, f.t < last { return false }
    lastSeq = f.seq
    lastT = f.t
    return true
  }

  /// Why `takes(_:)` refused `f`.
  public func rejection(of f: Frame) -> ProtocolError {
    if let last = lastSeq, f.seq <= last {
      return ProtocolError(.seqNotIncreasing, "seq \(f.seq) is not greater than \(last)", seq: f.seq)
    }
    return ProtocolError(.timeBackwards, "t \(f.t) is earlier than the previous frame's \(lastT ?? f.t)", seq: f.seq)
  }
}

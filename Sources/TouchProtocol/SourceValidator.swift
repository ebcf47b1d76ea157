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
    if let last = lastSeq, f.seq <= last {
      return ProtocolError(.seqNotIncreasing, "seq \(f.seq) is not greater than \(last)", seq: f.seq)
    }
    if let last = lastT, f.t < last {
      return ProtocolError(.timeBackwards, "t \(f.t) is earlier than the previous frame's \(last)", seq: f.seq)
    }
    lastSeq = f.seq
    lastT = f.t
    return nil
  }
}

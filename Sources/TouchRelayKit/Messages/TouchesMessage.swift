import TouchProtocol

/// A raw `touches` message (observers with `raw=1`): one frame of a source as received.
public struct TouchesMessage: Sendable, Equatable {
  public var origin: Origin
  public var touches: [TouchPoint]

  public init(origin: Origin, touches: [TouchPoint]) {
    self.origin = origin
    self.touches = touches
  }

  public var source: String { origin.source }
  public var frame: Frame { Frame(seq: origin.seq, t: origin.t, touches: touches) }
}

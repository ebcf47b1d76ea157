import TouchProtocol

/// A raw `touches` message (observers with `raw=1`): one frame of a source as received.
public struct TouchesMessage: Sendable, Equatable {
  public var origin: Origin
  public var touches: [TouchPoint]
  /// Ids of the entries the server marked `"palm": true` (gestures.md, "Palm rejection").
  public var palms: Set<Int64>
  /// Where the server expects each moving touch `predict` ms after `t`, by touch id, for an
  /// observer that asked (`?predict=MS`, protocol §2.5).
  public var predicted: [Int64: PredictedPosition]

  public init(
    origin: Origin, touches: [TouchPoint], palms: Set<Int64> = [], predicted: [Int64: PredictedPosition] = [:]
  ) {
    self.origin = origin
    self.touches = touches
    self.palms = palms
    self.predicted = predicted
  }

  public var source: String { origin.source }
  public var frame: Frame { Frame(seq: origin.seq, t: origin.t, touches: touches) }
}

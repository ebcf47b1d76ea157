import TouchProtocol

/// A `gesture` message: the members every gesture has, and the kind's own in `payload`.
public struct GestureMessage: Sendable, Equatable {
  public var origin: Origin
  /// Pairs `began` with `ended` for one gesture instance of one source.
  public var id: Int
  public var state: GestureState
  public var x: Double
  public var y: Double
  public var touches: Int
  public var regions: [String]
  public var fingers: [GestureFinger]
  public var payload: GesturePayload

  public init(
    origin: Origin, id: Int, state: GestureState, x: Double, y: Double, touches: Int,
    regions: [String], fingers: [GestureFinger], payload: GesturePayload
  ) {
    self.origin = origin
    self.id = id
    self.state = state
    self.x = x
    self.y = y
    self.touches = touches
    self.regions = regions
    self.fingers = fingers
    self.payload = payload
  }

  public var source: String { origin.source }
  public var kind: GestureKind { payload.kind }
}

import TouchProtocol

/// What each gesture kind adds (protocol/gestures.md, "Event fields").
public enum GesturePayload: Sendable, Equatable {
  case tap(taps: Int)
  case longpress
  /// Translation from where the fingers went down; velocity in points per second.
  case pan(translation: Vector, velocity: Vector)
  /// Scale since the second finger landed; velocity in scale per second.
  case pinch(scale: Double, velocity: Double)
  /// Radians since the second finger landed, clockwise positive; velocity in radians per second.
  case rotation(rotation: Double, velocity: Double)
  case swipe(direction: SwipeDirection, translation: Vector?, velocity: Vector)
  /// A drawing like the template `name`; `score` 0 to 1; `bounds` the drawing's box.
  case shape(name: String, score: Double, bounds: ShapeBounds)

  public var kind: GestureKind {
    switch self {
    case .tap: .tap
    case .longpress: .longpress
    case .pan: .pan
    case .pinch: .pinch
    case .rotation: .rotation
    case .swipe: .swipe
    case .shape: .shape
    }
  }
}

/// The names of the enums the hot messages carry, as literals: the encoder copies their bytes
/// (`JSONWriter.string(literal:)`) instead of building each `rawValue` and scanning it for
/// characters to escape, which cost more than the rest of a touch. Each equals its `rawValue`
/// (checked by a test).
extension TouchPhase {
  public var wireName: StaticString {
    switch self {
    case .began: "began"
    case .moved: "moved"
    case .stationary: "stationary"
    case .ended: "ended"
    case .cancelled: "cancelled"
    }
  }
}

extension GestureKind {
  public var wireName: StaticString {
    switch self {
    case .tap: "tap"
    case .longpress: "longpress"
    case .pan: "pan"
    case .pinch: "pinch"
    case .rotation: "rotation"
    case .swipe: "swipe"
    case .shape: "shape"
    }
  }
}

extension GestureState {
  public var wireName: StaticString {
    switch self {
    case .began: "began"
    case .changed: "changed"
    case .ended: "ended"
    case .cancelled: "cancelled"
    case .recognized: "recognized"
    }
  }
}

/// Per-source recognizer settings sent in `hello.config`. Every field is optional;
/// a missing one keeps the engine's default (documented in protocol/README.md).
public struct GestureConfig: Sendable, Equatable, Codable {
  /// "deferred" (default: a single tap waits for the double tap to fail) or "immediate".
  public var tapMode: String?
  public var tapMaxDuration: Double?
  public var tapMaxMovement: Double?
  public var multiTapInterval: Double?
  public var multiTapDistance: Double?
  public var longPressDuration: Double?
  public var longPressMaxMovement: Double?
  public var panThreshold: Double?
  public var panMinTouches: Int?
  public var panMaxTouches: Int?
  public var swipeMinDistance: Double?
  public var swipeMinVelocity: Double?
  public var swipeVelocityWindow: Double?
  public var maxFingers: Int?
  /// Which recognizers run; nil means all of them.
  public var recognizers: [String]?

  public init() {}
}

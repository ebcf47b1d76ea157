/// Per-source recognizer settings sent in `hello.config`. Every field is optional;
/// a missing one keeps the engine's default (documented in protocol/README.md).
public struct GestureConfig: Sendable, Equatable, Codable {
  /// A platform's thresholds (`GesturePreset`'s names), laid under the members given beside it:
  /// those override it, and without it nothing changes.
  public var preset: String?
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
  /// Longest one-finger tap sequence (default 2; 1 reports every tap at once, 3 allows triple taps).
  public var tapMaxCount: Int?
  /// Longest tap sequence of two or more fingers (default 1: a two-finger tap is reported at once).
  public var multiFingerTapMaxCount: Int?
  /// Change of the finger spread, in points, before a pinch begins (default 10).
  public var pinchThreshold: Double?
  /// Turn, in radians, before a rotation begins (default 0.2).
  public var rotationThreshold: Double?
  /// Which recognizers run; nil means all of them.
  public var recognizers: [String]?
  /// Templates of drawings to recognize (`ShapeTemplate`); none, no shape recognition.
  public var shapes: [ShapeTemplate]?
  /// Ms after a lift within which the next stroke belongs to the same drawing (default 500).
  public var shapeStrokeGap: Double?
  /// Least score (0 to 1) a drawing needs to be reported as a shape (default 0.8).
  public var shapeMinScore: Double?
  /// Palm rejection (`PalmConfig`): nil keeps it on with its defaults; `false` turns it off.
  public var palm: PalmConfig?

  public init() {}
}

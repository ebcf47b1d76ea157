/// The gestures the engine recognizes.
public enum GestureKind: String, Sendable, CaseIterable, Codable {
  case tap, longpress, pan, pinch, rotation, swipe
  /// A drawing like one of the source's `config.shapes` (`ShapeEvent`; last, so the cluster
  /// bus's index of every other kind stays what it was).
  case shape
}

/// A gesture's state as reported to observers. Discrete gestures (tap, swipe) are
/// `recognized` once; continuous ones go began -> changed* -> ended | cancelled.
public enum GestureState: String, Sendable, CaseIterable, Codable {
  case began, changed, ended, cancelled, recognized

  /// `changed` updates are superseded by the next one, so a full observer queue may drop them.
  public var isSupersedable: Bool { self == .changed }
}

public enum SwipeDirection: String, Sendable, CaseIterable, Codable {
  case left, right, up, down
}

public struct Vector: Sendable, Equatable {
  public var x: Double
  public var y: Double
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
}

/// One finger of a gesture, with the regions it hit.
public struct GestureFinger: Sendable, Equatable {
  public var id: Int64
  public var x: Double
  public var y: Double
  public var regions: [String]
  public init(id: Int64, x: Double, y: Double, regions: [String]) {
    self.id = id
    self.x = x
    self.y = y
    self.regions = regions
  }
}

/// One event out of the gesture engine. Which optional fields are set depends on `gesture`
/// (see protocol/README.md, "gesture").
public struct GestureEvent: Sendable, Equatable {
  /// Numbers the instances of gestures of one source, so a client can pair began with ended.
  public var id: Int
  public var gesture: GestureKind
  public var state: GestureState
  /// Device time (ms) the event belongs to: the frame's `t`, or the deadline of a timer.
  public var t: Double
  /// Location: the centroid of the fingers (for a two-finger tap, the midpoint).
  public var x: Double
  public var y: Double
  /// Number of fingers.
  public var touches: Int
  /// Regions hit by the location, topmost first.
  public var regions: [String]
  /// tap: the number of taps in the sequence.
  public var taps: Int?
  /// pan, swipe: offset from where the finger(s) went down, in points.
  public var translation: Vector?
  /// pan, swipe: points per second.
  public var velocity: Vector?
  /// pinch: spread now / spread at the baseline.
  public var scale: Double?
  /// rotation: radians since the second finger landed, clockwise positive, unwrapped.
  public var rotation: Double?
  /// pinch: scale per second; rotation: radians per second.
  public var rate: Double?
  /// swipe: the direction.
  public var direction: SwipeDirection?
  /// Each finger with the regions it hit (where they began for taps).
  public var fingers: [GestureFinger]?

  public init(
    id: Int, gesture: GestureKind, state: GestureState, t: Double, x: Double, y: Double,
    touches: Int, regions: [String] = [], taps: Int? = nil, translation: Vector? = nil,
    velocity: Vector? = nil, scale: Double? = nil, rotation: Double? = nil, rate: Double? = nil,
    direction: SwipeDirection? = nil, fingers: [GestureFinger]? = nil
  ) {
    self.id = id
    self.gesture = gesture
    self.state = state
    self.t = t
    self.x = x
    self.y = y
    self.touches = touches
    self.regions = regions
    self.taps = taps
    self.translation = translation
    self.velocity = velocity
    self.scale = scale
    self.rotation = rotation
    self.rate = rate
    self.direction = direction
    self.fingers = fingers
  }
}

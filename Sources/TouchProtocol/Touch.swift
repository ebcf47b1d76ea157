/// The five phases of a touch, as UIKit names them (article 002).
public enum TouchPhase: String, Sendable, CaseIterable, Codable {
  case began, moved, stationary, ended, cancelled

  /// True for the phases after which the touch id is free again.
  public var isTerminal: Bool { self == .ended || self == .cancelled }
}

/// One finger (or pen, or mouse) in one frame. `id` lives from `began` to `ended`/`cancelled`.
public struct TouchPoint: Sendable, Equatable {
  public var id: Int64
  public var phase: TouchPhase
  public var x: Double
  public var y: Double
  public var force: Double?
  public var radiusX: Double?
  public var radiusY: Double?
  /// `kind`, `pressure`, `radius`, `altitude`, `azimuth` and `hover`, when the source sent any
  /// of them; nil for a plain finger (one value, so a touch point stays small).
  public var details: ContactDetails?

  public init(
    id: Int64, phase: TouchPhase, x: Double, y: Double,
    force: Double? = nil, radiusX: Double? = nil, radiusY: Double? = nil, details: ContactDetails? = nil
  ) {
    self.id = id
    self.phase = phase
    self.x = x
    self.y = y
    self.force = force
    self.radiusX = radiusX
    self.radiusY = radiusY
    self.details = details
  }

  /// A pen above the glass (`hover: true`): mirrored, but never a finger to the engine.
  public var isHovering: Bool { details?.hover == true }
}

/// Every touch that is down at one moment of the device (`t`, device milliseconds).
public struct Frame: Sendable, Equatable {
  public var seq: Int64
  public var t: Double
  public var touches: [TouchPoint]

  public init(seq: Int64, t: Double, touches: [TouchPoint]) {
    self.seq = seq
    self.t = t
    self.touches = touches
  }
}

import TouchProtocol

/// Articles 001 and 004: zooming content that fills the surface. A content point p (surface
/// points at scale 1) shows at (p - centre) * scale + (width/2, height/2).
///
/// A one-finger double tap zooms in x2 around the tap (repeated double taps zoom further), a
/// two-finger tap zooms out x2 around the midpoint of the fingers, and a pinch scales
/// continuously around the fingers' centroid. The scale is clamped to [1, 16] and the centre
/// so the content always covers the surface.
struct ZoomScene: Sendable {
  static let name = "zoom"
  static let minScale = 1.0
  static let maxScale = 16.0

  private(set) var scale = 1.0
  private(set) var centreX: Double
  private(set) var centreY: Double
  private var width: Double
  private var height: Double
  /// The pinch scale already applied, so each update applies only its own factor.
  private var appliedPinchScale = 1.0

  init(device: Device) {
    width = device.width
    height = device.height
    centreX = width / 2
    centreY = height / 2
  }

  mutating func resize(_ d: Device) {
    width = d.width
    height = d.height
    clampCentre()
  }

  mutating func consume(_ note: ArenaNote) -> Bool {
    guard case .gesture(let e) = note else { return false }
    let before = (scale, centreX, centreY)
    switch (e.gesture, e.state) {
    case (.tap, _) where e.touches == 1 && (e.taps ?? 1) == 2:
      zoom(by: 2, aroundX: e.x, y: e.y)
    case (.tap, _) where e.touches == 2 && (e.taps ?? 1) == 1:
      zoom(by: 0.5, aroundX: e.x, y: e.y)
    case (.pinch, .began), (.pinch, .changed), (.pinch, .ended):
      if e.state == .began { appliedPinchScale = 1 }
      if let s = e.scale, s > 0, appliedPinchScale > 0 {
        zoom(by: s / appliedPinchScale, aroundX: e.x, y: e.y)
        appliedPinchScale = s
      }
    default:
      break
    }
    return before != (scale, centreX, centreY)
  }

  /// Keeps the content point under the surface point (x, y) where it is.
  private mutating func zoom(by factor: Double, aroundX x: Double, y: Double) {
    let px = (x - width / 2) / scale + centreX
    let py = (y - height / 2) / scale + centreY
    scale = min(Self.maxScale, max(Self.minScale, scale * factor))
    centreX = px - (x - width / 2) / scale
    centreY = py - (y - height / 2) / scale
    clampCentre()
  }

  private mutating func clampCentre() {
    let hx = width / (2 * scale)
    let hy = height / (2 * scale)
    centreX = min(width - hx, max(hx, centreX))
    centreY = min(height - hy, max(hy, centreY))
  }

  mutating func control(_ c: Control) -> Result<Bool, ProtocolError> {
    if c.recognizeAny != nil {
      return .failure(ProtocolError(.unknownAction, "zoom has no 'recognizeAny' switch"))
    }
    guard let action = c.action else { return .success(false) }
    guard action == "reset" else {
      return .failure(
        ProtocolError(.unknownAction, "zoom has no action '\(action.prefix(64))'; it has 'reset'"))
    }
    let changed = scale != 1 || centreX != width / 2 || centreY != height / 2
    scale = 1
    centreX = width / 2
    centreY = height / 2
    return .success(changed)
  }

  var state: JSONValue {
    .object([
      ("scene", .string(Self.name)),
      ("scale", .number(scale)),
      ("centre", .object([("x", .number(centreX)), ("y", .number(centreY))])),
    ])
  }
}

import TouchProtocol

/// Palm rejection (protocol/gestures.md, "Palm rejection"): which of a frame's touches are a
/// palm, so that the engine sees no finger for them and raw observers see them marked.
///
/// A touch is a palm from the first frame in which its `radius` is at least `radius` points,
/// or, with `whilePen`, when it is a finger that lands (`began`) while a pen or eraser touches
/// the surface; it stays a palm until it ends, is cancelled, goes missing or hovers. Only a
/// touch the source described (`details`) can become one, so `SourceEngine` classifies only
/// frames with such a touch, or while a palm is down (`isHolding`).
struct PalmFilter: Sendable {
  /// Points. A light fingertip measures 12 to 26 (UITouch.majorRadius), a finger laid flat 51
  /// to 64, a hand resting as it holds a pen 115 to 270 (gestures.md gives the sources).
  static let defaultRadius = 80.0

  /// `.infinity` when the radius rule is off.
  private var radius = defaultRadius
  private var whilePen = true
  /// Neither rule is on: nothing is ever a palm.
  private var off = false
  /// Ids of the touches that are palms and still down, in no order (a handful at most).
  private var down: [Int64] = []
  /// The palm entries of the frame classified last, by id.
  private(set) var marked: [Int64] = []

  init(config: PalmConfig?) {
    update(config: config)
  }

  /// New settings apply from the next frame; touches that are palms stay palms until they
  /// end, even once palm rejection is turned off (their later phases are no fingers either).
  mutating func update(config: PalmConfig?) {
    let c = config ?? PalmConfig()
    radius = c.enabled ? (c.radius ?? Self.defaultRadius) : .infinity
    whilePen = c.enabled && (c.whilePen ?? true)
    off = !c.enabled
  }

  /// Either rule is on (`config.palm` is not `false`).
  var isOn: Bool { !off }
  /// A palm is down.
  var isHolding: Bool { !down.isEmpty }

  /// Classifies `frame`: afterwards `marked` lists its palm entries. Returns whether it has any.
  mutating func classify(_ frame: Frame) -> Bool {
    if !marked.isEmpty { marked.removeAll(keepingCapacity: true) }
    // Off, neither rule makes a palm (the radius is infinite, `whilePen` false): only palms
    // still down are marked.
    let penDown = whilePen && frame.touches.contains { $0.isTouchingPen }
    for p in frame.touches where !p.isHovering {
      // A `began` is a new touch, whatever its id was before.
      let was = p.phase != .began && down.contains(p.id)
      if was || isPalm(p, penDown: penDown) { marked.append(p.id) }
    }
    // The palms still down: this frame's, but for those that end in it.
    down.removeAll(keepingCapacity: true)
    if !marked.isEmpty {
      for p in frame.touches where !p.phase.isTerminal && !p.isHovering && marked.contains(p.id) {
        down.append(p.id)
      }
    }
    return !marked.isEmpty
  }

  private func isPalm(_ p: TouchPoint, penDown: Bool) -> Bool {
    if let r = p.details?.radius, r >= radius { return true }
    return penDown && p.phase == .began && (p.details?.kind ?? .finger) == .finger
  }
}

extension TouchPoint {
  /// A pen or its eraser on the glass (not hovering, not cancelled): fingers landing beside
  /// it are palms (`PalmFilter`, `whilePen`).
  fileprivate var isTouchingPen: Bool {
    guard let d = details, d.kind == .pen || d.kind == .eraser else { return false }
    return d.hover != true && phase != .cancelled
  }
}

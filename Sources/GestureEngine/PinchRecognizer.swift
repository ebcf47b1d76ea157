import TouchProtocol

/// Two or more fingers spreading or closing. `scale` is the finger spread now over the
/// spread when the second finger landed. When a finger joins or leaves, the baseline is
/// re-based on the new set so the scale goes on from where it was; with one finger left
/// the pinch stays active, frozen, and resumes when a finger lands again (article 004's
/// shortcut of forgetting both fingers is what this avoids). It ends when every finger is up.
struct PinchRecognizer: TwoFingerRecognizer {
  var state: RecognizerState = .failed
  var gestureID = 0
  private var hasBaseline = false
  private var spreadBase = 0.0
  private var scaleBase = 1.0
  private(set) var scale = 1.0
  private var track = VelocityTracker(window: 100)
  var lastX = 0.0
  var lastY = 0.0

  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {
    state = ctx.enabled(.pinch) ? .possible : .failed
    hasBaseline = false
    scale = 1
    scaleBase = 1
    track.reset(window: ctx.settings.velocityWindow)
  }

  mutating func membershipChanged(t: Double, ctx: GestureContext) {
    guard ctx.table.count >= 2 else { return }
    if !hasBaseline { track.add(t: t, x: 1, y: 0) }
    hasBaseline = true
    spreadBase = Geometry.spread(ctx.table.fingers)
    scaleBase = scale
  }

  /// Updates the scale; returns true when the pinch wants to begin now.
  mutating func fingersMoved(t: Double, ctx: inout GestureContext) -> Bool {
    guard hasBaseline, ctx.table.count >= 2, state == .possible || state.isActive else {
      return false
    }
    let spread = Geometry.spread(ctx.table.fingers)
    guard spreadBase > 1e-9 else {
      // Fingers landed on one spot: a ratio needs a non-zero base, so take this one.
      spreadBase = spread
      scaleBase = scale
      return false
    }
    let next = scaleBase * spread / spreadBase
    let changed = next != scale
    scale = next
    track.add(t: t, x: next, y: 0)
    if state == .possible {
      return abs(spread - spreadBase) > ctx.settings.pinchThreshold
    }
    if changed { change(at: t, ctx: &ctx) }
    return false
  }

  func event(_ s: GestureState, t: Double, x: Double, y: Double, ctx: GestureContext) -> GestureEvent {
    var e = ctx.event(
      gestureID, .pinch, s, t: t, x: x, y: y, touches: ctx.table.count, fingers: ctx.currentFingers())
    e.scale = scale
    e.rate = track.perMillisecond.x * 1000
    return e
  }
}

import TouchProtocol

/// A drag of `panMinTouches`...`panMaxTouches` fingers. It begins once the centroid is more
/// than `panThreshold` from where it went down; `translation` is measured from the touch-down
/// point (a 150 pt drag reports 150, not 140). When fingers join or leave, the centroid is
/// re-based so the translation goes on without a jump. It ends when the last finger lifts
/// or the finger count leaves the allowed range.
struct PanRecognizer: ContinuousRecognizer, Sendable {
  var state: RecognizerState = .failed
  var gestureID = 0
  private var baseX = 0.0
  private var baseY = 0.0
  private var accumX = 0.0
  private var accumY = 0.0
  private(set) var translation = Vector(x: 0, y: 0)
  private var track = VelocityTracker(window: 100)
  var lastX = 0.0
  var lastY = 0.0

  mutating func sequenceBegan(t: Double, ctx: GestureContext) {
    state = ctx.enabled(.pan) ? .possible : .failed
    let c = Geometry.centroid(ctx.table.fingers)
    baseX = c.x
    baseY = c.y
    accumX = 0
    accumY = 0
    translation = Vector(x: 0, y: 0)
    track.reset(window: ctx.settings.velocityWindow)
    track.add(t: t, x: 0, y: 0)
  }

  /// Fingers joined or left (some are still down).
  mutating func membershipChanged(t: Double, ctx: inout GestureContext) {
    accumX = translation.x
    accumY = translation.y
    let c = Geometry.centroid(ctx.table.fingers)
    baseX = c.x
    baseY = c.y
    if state.isActive && !inRange(ctx) { finish(at: t, ctx: &ctx) }
  }

  /// Updates the translation; returns true when the pan wants to begin now.
  mutating func moved(t: Double, allowed: Bool, ctx: inout GestureContext) -> Bool {
    let c = Geometry.centroid(ctx.table.fingers)
    let next = Vector(x: accumX + c.x - baseX, y: accumY + c.y - baseY)
    let changed = next != translation
    translation = next
    track.add(t: t, x: next.x, y: next.y)
    if state == .possible {
      return allowed && inRange(ctx)
        && Geometry.distance(next.x, next.y) > ctx.settings.panThreshold
    }
    if state.isActive && changed {
      state = .changed
      report(.changed, t: t, ctx: &ctx)
    }
    return false
  }

  /// The translation's velocity over the velocity window, points per millisecond. Tracked
  /// in every state, so it is there for a swipe even when pans are disabled.
  var velocityPerMillisecond: (x: Double, y: Double) { track.perMillisecond }

  var hotBytes: (UnsafeRawPointer, Int) { track.hotBytes }

  private var velocity: Vector {
    let v = velocityPerMillisecond
    return Vector(x: v.x * 1000, y: v.y * 1000)
  }

  private func inRange(_ ctx: GestureContext) -> Bool {
    (ctx.settings.panMinTouches...ctx.settings.panMaxTouches).contains(ctx.table.count)
  }

  func event(_ s: GestureState, t: Double, x: Double, y: Double, ctx: inout GestureContext) -> GestureEvent {
    var e = ctx.event(
      gestureID, .pan, s, t: t, x: x, y: y, touches: ctx.table.count, fingers: ctx.currentFingers())
    e.translation = translation
    e.velocity = velocity
    return e
  }
}

import TouchProtocol

/// A drag of `panMinTouches`...`panMaxTouches` fingers. It begins once the centroid is more
/// than `panThreshold` from where it went down; `translation` is measured from the touch-down
/// point (a 150 pt drag reports 150, not 140). When fingers join or leave, the centroid is
/// re-based so the translation goes on without a jump. It ends when the last finger lifts
/// or the finger count leaves the allowed range.
struct PanRecognizer: ContinuousRecognizer {
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

  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {
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

  mutating func fingerJoined(t: Double, ctx: inout GestureContext) { membershipChanged(t: t, ctx: &ctx) }

  mutating func fingerLeft(t: Double, ctx: inout GestureContext) { membershipChanged(t: t, ctx: &ctx) }

  mutating func allFingersLifting(_ ends: [Int64], t: Double, ctx: inout GestureContext) {
    finish(at: t, ctx: &ctx)
  }

  /// At the last lift the pan ends, and leaves the velocity for the swipe: a swipe is one
  /// finger all sequence long, and then the translation moved with that finger sample for
  /// sample, so this tracker measures the finger's own velocity (fingers keep no tracker of
  /// their own: one tracker less to feed per finger and frame).
  mutating func fingerLifting(_ f: Finger, last: Bool, t: Double, ctx: inout GestureContext) -> Bool {
    if last {
      finish(at: t, ctx: &ctx)
      ctx.sequence.liftVelocity = track.perMillisecond
    }
    return false
  }

  /// Fingers joined or left (some are still down).
  private mutating func membershipChanged(t: Double, ctx: inout GestureContext) {
    accumX = translation.x
    accumY = translation.y
    let c = Geometry.centroid(ctx.table.fingers)
    baseX = c.x
    baseY = c.y
    if state.isActive && !inRange(ctx) { finish(at: t, ctx: &ctx) }
  }

  /// Updates the translation; returns true when the pan wants to begin now.
  mutating func fingersMoved(t: Double, ctx: inout GestureContext) -> Bool {
    let c = Geometry.centroid(ctx.table.fingers)
    let next = Vector(x: accumX + c.x - baseX, y: accumY + c.y - baseY)
    let changed = next != translation
    translation = next
    track.add(t: t, x: next.x, y: next.y)
    if state == .possible {
      return inRange(ctx) && Geometry.distance(next.x, next.y) > ctx.settings.panThreshold
    }
    if state.isActive && changed { change(at: t, ctx: &ctx) }
    return false
  }

  // The translation is tracked in every state, so its velocity is there for a swipe even
  // when pans are disabled.

  func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void) {
    let (history, bytes) = track.hotBytes
    body(history, bytes)
  }

  private var velocity: Vector {
    let v = track.perMillisecond
    return Vector(x: v.x * 1000, y: v.y * 1000)
  }

  private func inRange(_ ctx: GestureContext) -> Bool {
    (ctx.settings.panMinTouches...ctx.settings.panMaxTouches).contains(ctx.table.count)
  }

  func event(_ s: GestureState, t: Double, x: Double, y: Double, ctx: GestureContext) -> GestureEvent {
    var e = ctx.event(
      gestureID, .pan, s, t: t, x: x, y: y, touches: ctx.table.count, fingers: ctx.currentFingers())
    e.translation = translation
    e.velocity = velocity
    return e
  }
}

import TouchProtocol

/// A one-finger flick, decided when the finger lifts: at least `swipeMinDistance` from where
/// it landed and at least `swipeMinVelocity` (pt/ms) over the last `swipeVelocityWindow` ms,
/// so a finger that swipes, stops and holds has not swiped. The direction is the dominant
/// axis of the whole movement (horizontal on a tie). A sequence claimed by a multi-finger
/// gesture, a cancelled one, or one whose long press began is no swipe (the arena's table
/// says so: their claims exclude it).
struct SwipeRecognizer: GestureRecognizer {
  private(set) var state: RecognizerState = .failed

  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {
    state = ctx.enabled(.swipe) ? .possible : .failed
  }

  /// The last finger of the sequence is lifting; the velocity is the sequence's as it lifts
  /// (`TouchSequence.liftVelocity`, meaningful when it was the sequence's only finger).
  mutating func fingerLifting(_ f: Finger, last: Bool, t: Double, ctx: inout GestureContext) -> Bool {
    guard last, state == .possible else { return false }
    state = .failed
    guard ctx.sequence.members.count == 1 else { return false }
    let v = ctx.sequence.liftVelocity
    guard Geometry.distance(f.x - f.downX, f.y - f.downY) >= ctx.settings.swipeMinDistance else {
      return false
    }
    return Geometry.distance(v.x, v.y) >= ctx.settings.swipeMinVelocity
  }

  /// Reported as the claim goes through, from the lifting finger (still the table's only one:
  /// the arena removes it after the lift is settled), so nothing waits in the recognizer.
  mutating func accept(at t: Double, ctx: inout GestureContext) {
    guard let f = ctx.table.fingers.first else { return }
    state = .recognized
    let dx = f.x - f.downX
    let dy = f.y - f.downY
    let v = ctx.sequence.liftVelocity
    let direction: SwipeDirection =
      abs(dx) >= abs(dy) ? (dx < 0 ? .left : .right) : (dy < 0 ? .up : .down)
    var e = ctx.event(
      ctx.log.nextID(), .swipe, .recognized, t: t, x: f.x, y: f.y, touches: 1,
      fingers: [GestureFinger(id: f.id, x: f.x, y: f.y, regions: ctx.regions.hit(f.x, f.y))])
    e.direction = direction
    e.velocity = Vector(x: v.x * 1000, y: v.y * 1000)
    e.translation = Vector(x: dx, y: dy)
    ctx.log.emit(consume e)
  }

  mutating func reject(at t: Double, ctx: inout GestureContext) {
    if state == .possible { state = .failed }
  }
}

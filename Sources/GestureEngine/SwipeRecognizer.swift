import TouchProtocol

/// A one-finger flick, decided when the finger lifts: at least `swipeMinDistance` from where
/// it landed and at least `swipeMinVelocity` (pt/ms) over the last `swipeVelocityWindow` ms,
/// so a finger that swipes, stops and holds has not swiped. The direction is the dominant
/// axis of the whole movement (horizontal on a tie). A sequence claimed by a multi-finger
/// gesture, a cancelled one, or one whose long press began is no swipe.
struct SwipeRecognizer: Sendable {
  private(set) var state: RecognizerState = .failed

  mutating func sequenceBegan(ctx: GestureContext) {
    state = ctx.enabled(.swipe) ? .possible : .failed
  }

  /// The last finger of the sequence is lifting; `velocity` is its own over the velocity
  /// window, points per millisecond (meaningful when it was the sequence's only finger).
  mutating func lastFingerLifted(
    _ f: Finger, t: Double, longPressBegan: Bool, velocity v: (x: Double, y: Double),
    ctx: inout GestureContext
  ) {
    guard state == .possible else { return }
    state = .failed
    let seq = ctx.sequence
    guard seq.members.count == 1, !seq.cancelled, !seq.multiClaimed, !longPressBegan else { return }
    let dx = f.x - f.downX
    let dy = f.y - f.downY
    guard Geometry.distance(dx, dy) >= ctx.settings.swipeMinDistance else { return }
    guard Geometry.distance(v.x, v.y) >= ctx.settings.swipeMinVelocity else { return }
    let direction: SwipeDirection =
      abs(dx) >= abs(dy) ? (dx < 0 ? .left : .right) : (dy < 0 ? .up : .down)
    state = .recognized
    var e = ctx.event(
      ctx.log.nextID(), .swipe, .recognized, t: t, x: f.x, y: f.y, touches: 1,
      fingers: [GestureFinger(id: f.id, x: f.x, y: f.y, regions: ctx.regions.hit(f.x, f.y))])
    e.direction = direction
    e.velocity = Vector(x: v.x * 1000, y: v.y * 1000)
    e.translation = Vector(x: dx, y: dy)
    ctx.log.emit(consume e)
  }
}

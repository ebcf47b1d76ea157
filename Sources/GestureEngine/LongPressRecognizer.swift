import TouchProtocol

/// One finger held still for `longPressDuration` (at most `longPressMaxMovement` from where
/// it landed). `began` comes from the timer, at its deadline; then `changed` on every move
/// and `ended` on lift. Another finger landing before the deadline makes it fail (article
/// 004 cancels its "push" timer on a new finger); after it began, other fingers are ignored.
/// Its lifecycle is `ContinuousRecognizer`'s; it reports where its own finger is.
struct LongPressRecognizer: ContinuousRecognizer {
  var state: RecognizerState = .failed
  private var fingerID: Int64 = 0
  private var due = 0.0
  var gestureID = 0
  var lastX = 0.0
  var lastY = 0.0

  func deadline(ctx: GestureContext) -> Double? { state == .possible ? due : nil }

  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {
    state = ctx.enabled(.longpress) ? .possible : .failed
    fingerID = f.id
    due = t + ctx.settings.longPressDuration
  }

  mutating func fingerJoined(t: Double, ctx: inout GestureContext) {
    if state == .possible { state = .failed }
  }

  mutating func fingersMoved(t: Double, ctx: inout GestureContext) -> Bool {
    // Most frames find the press failed long ago; only then is the finger looked up, and
    // read in place rather than copied out of the table.
    guard state == .possible || state.isActive, let i = ctx.table.index(of: fingerID) else {
      return false
    }
    if state == .possible {
      if ctx.table.fingers[i].distanceFromDown > ctx.settings.longPressMaxMovement {
        state = .failed
      }
    } else if ctx.table.fingers[i].x != lastX || ctx.table.fingers[i].y != lastY {
      change(at: t, ctx: &ctx)
    }
    return false
  }

  /// The hold is long enough: it claims the sequence if its finger is still down.
  mutating func fire(at t: Double, ctx: inout GestureContext) -> Bool {
    guard state == .possible, ctx.table.index(of: fingerID) != nil else {
      if state == .possible { state = .failed }
      return false
    }
    return true
  }

  mutating func allFingersLifting(_ ends: [Int64], t: Double, ctx: inout GestureContext) {
    if ends.contains(fingerID) { finish(at: t, ctx: &ctx) }
  }

  mutating func fingerLifting(_ f: Finger, last: Bool, t: Double, ctx: inout GestureContext) -> Bool {
    if f.id == fingerID { finish(at: t, ctx: &ctx) }
    return false
  }

  func location(ctx: GestureContext) -> (x: Double, y: Double) {
    guard let i = ctx.table.index(of: fingerID) else { return (lastX, lastY) }
    return (ctx.table.fingers[i].x, ctx.table.fingers[i].y)
  }

  func event(_ s: GestureState, t: Double, x: Double, y: Double, ctx: GestureContext) -> GestureEvent {
    ctx.event(
      gestureID, .longpress, s, t: t, x: x, y: y, touches: 1,
      fingers: [GestureFinger(id: fingerID, x: x, y: y, regions: ctx.regions.hit(x, y))])
  }
}

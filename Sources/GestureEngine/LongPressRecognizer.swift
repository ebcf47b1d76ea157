import TouchProtocol

/// One finger held still for `longPressDuration` (at most `longPressMaxMovement` from where
/// it landed). `began` comes from the timer, at its deadline; then `changed` on every move
/// and `ended` on lift. Another finger landing before the deadline makes it fail (article
/// 004 cancels its "push" timer on a new finger); after it began, other fingers are ignored.
struct LongPressRecognizer: Sendable {
  private(set) var state: RecognizerState = .failed
  private var fingerID: Int64 = 0
  private var due = 0.0
  private var gestureID = 0
  private var lastX = 0.0
  private var lastY = 0.0

  var deadline: Double? { state == .possible ? due : nil }

  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: GestureContext) {
    state = ctx.enabled(.longpress) ? .possible : .failed
    fingerID = f.id
    due = t + ctx.settings.longPressDuration
  }

  mutating func fingerJoined() {
    if state == .possible { state = .failed }
  }

  mutating func moved(t: Double, ctx: inout GestureContext) {
    // Most frames find the press failed long ago; only then is the finger looked up, and
    // read in place rather than copied out of the table.
    guard state == .possible || state.isActive, let i = ctx.table.index(of: fingerID) else {
      return
    }
    if state == .possible {
      if ctx.table.fingers[i].distanceFromDown > ctx.settings.longPressMaxMovement {
        state = .failed
      }
    } else if ctx.table.fingers[i].x != lastX || ctx.table.fingers[i].y != lastY {
      state = .changed
      report(.changed, ctx.table.fingers[i], t: t, ctx: &ctx)
    }
  }

  /// Whether the timer may begin the press now; the arena settles conflicts before `begin`.
  func canBegin(ctx: GestureContext) -> Bool {
    state == .possible && !ctx.sequence.cancelled && !ctx.sequence.multiClaimed
      && ctx.table.finger(fingerID) != nil
  }

  mutating func begin(at t: Double, ctx: inout GestureContext) {
    guard canBegin(ctx: ctx), let f = ctx.table.finger(fingerID) else {
      if state == .possible { state = .failed }
      return
    }
    state = .began
    gestureID = ctx.log.nextID()
    report(.began, f, t: t, ctx: &ctx)
  }

  mutating func lifted(_ f: Finger, t: Double, ctx: inout GestureContext) {
    guard f.id == fingerID else { return }
    if state.isActive {
      state = .ended
      report(.ended, f, t: t, ctx: &ctx)
    } else if state == .possible {
      state = .failed
    }
  }

  mutating func cancel(at t: Double, ctx: inout GestureContext) {
    if state.isActive {
      state = .cancelled
      let e = ctx.event(
        gestureID, .longpress, .cancelled, t: t, x: lastX, y: lastY, touches: 1,
        fingers: [
          GestureFinger(id: fingerID, x: lastX, y: lastY, regions: ctx.regions.hit(lastX, lastY))
        ])
      ctx.log.emit(consume e)
    } else if state == .possible {
      state = .failed
    }
  }

  private mutating func report(_ s: GestureState, _ f: Finger, t: Double, ctx: inout GestureContext) {
    lastX = f.x
    lastY = f.y
    let e = ctx.event(
      gestureID, .longpress, s, t: t, x: f.x, y: f.y, touches: 1,
      fingers: [GestureFinger(id: f.id, x: f.x, y: f.y, regions: ctx.regions.hit(f.x, f.y))])
    ctx.log.emit(consume e)
  }
}

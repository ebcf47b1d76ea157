import TouchProtocol

/// The lifecycle long press, pan, pinch and rotation share: began, changed..., then exactly one
/// ended or cancelled. Each recognizer says only what its events carry and where they are; the
/// transitions live here once, and so do the arena's `accept`, `reject` and `cancel` for them.
protocol ContinuousRecognizer: GestureRecognizer {
  var state: RecognizerState { get set }
  var gestureID: Int { get set }
  /// Where the last event was reported: a cancel (fingers may already be gone) reports there.
  var lastX: Double { get set }
  var lastY: Double { get set }
  /// Where an event reports now: the fingers' centroid unless the recognizer follows one finger.
  func location(ctx: GestureContext) -> (x: Double, y: Double)
  /// This recognizer's event in state `s` at (x, y), with its own fields filled in.
  func event(_ s: GestureState, t: Double, x: Double, y: Double, ctx: GestureContext) -> GestureEvent
}

extension ContinuousRecognizer {
  func location(ctx: GestureContext) -> (x: Double, y: Double) {
    let c = Geometry.centroid(ctx.table.fingers)
    return (c.x, c.y)
  }

  /// The claim went through: the gesture begins.
  mutating func accept(at t: Double, ctx: inout GestureContext) {
    state = .began
    gestureID = ctx.log.nextID()
    report(.began, t: t, ctx: &ctx)
  }

  mutating func reject(at t: Double, ctx: inout GestureContext) {
    if state == .possible { state = .failed }
  }

  mutating func cancel(at t: Double, ctx: inout GestureContext) {
    if state.isActive {
      state = .cancelled
      let e = event(.cancelled, t: t, x: lastX, y: lastY, ctx: ctx)
      ctx.log.emit(consume e)
    } else if state == .possible {
      state = .failed
    }
  }

  /// An active gesture moved on.
  mutating func change(at t: Double, ctx: inout GestureContext) {
    state = .changed
    report(.changed, t: t, ctx: &ctx)
  }

  /// Its fingers are gone: an active gesture ends, a possible one fails.
  mutating func finish(at t: Double, ctx: inout GestureContext) {
    if state.isActive {
      state = .ended
      report(.ended, t: t, ctx: &ctx)
    } else if state == .possible {
      state = .failed
    }
  }

  /// Reports at `location`, which becomes the place a later cancel reports at.
  mutating func report(_ s: GestureState, t: Double, ctx: inout GestureContext) {
    let c = location(ctx: ctx)
    lastX = c.x
    lastY = c.y
    let e = event(s, t: t, x: c.x, y: c.y, ctx: ctx)
    ctx.log.emit(consume e)
  }
}

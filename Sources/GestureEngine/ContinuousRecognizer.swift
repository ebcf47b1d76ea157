import TouchProtocol

/// The lifecycle pan, pinch and rotation share: began, changed..., then exactly one ended or
/// cancelled. Each recognizer says only what its events carry; the transitions live here once.
protocol ContinuousRecognizer {
  var state: RecognizerState { get set }
  var gestureID: Int { get set }
  /// Where the last event was reported: a cancel (fingers may already be gone) reports there.
  var lastX: Double { get set }
  var lastY: Double { get set }
  /// This recognizer's event in state `s` at (x, y), with its own fields filled in.
  func event(_ s: GestureState, t: Double, x: Double, y: Double, ctx: inout GestureContext) -> GestureEvent
}

extension ContinuousRecognizer {
  mutating func begin(at t: Double, ctx: inout GestureContext) {
    state = .began
    gestureID = ctx.log.nextID()
    report(.began, t: t, ctx: &ctx)
  }

  mutating func finish(at t: Double, ctx: inout GestureContext) {
    if state.isActive {
      state = .ended
      report(.ended, t: t, ctx: &ctx)
    } else if state == .possible {
      state = .failed
    }
  }

  mutating func cancel(at t: Double, ctx: inout GestureContext) {
    if state.isActive {
      state = .cancelled
      ctx.log.emit(event(.cancelled, t: t, x: lastX, y: lastY, ctx: &ctx))
    } else if state == .possible {
      state = .failed
    }
  }

  /// Reports at the fingers' centroid, which becomes the place a later cancel reports at.
  mutating func report(_ s: GestureState, t: Double, ctx: inout GestureContext) {
    let c = Geometry.centroid(ctx.table.fingers)
    lastX = c.x
    lastY = c.y
    ctx.log.emit(event(s, t: t, x: c.x, y: c.y, ctx: &ctx))
  }
}

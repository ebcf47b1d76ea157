import TouchProtocol

/// The turn of the line through the first two fingers still down, in radians since the
/// second finger landed. Clockwise on screen is positive (y grows downward) and the angle is
/// unwrapped from frame to frame, so a 270 degree turn reports 3pi/2 with no jump at +-pi.
/// When the pair changes (a finger of it lifts), the new pair is the baseline and the
/// rotation goes on from where it was. Like the pinch, it survives a lifted finger.
struct RotationRecognizer: TwoFingerRecognizer {
  var state: RecognizerState = .failed
  var gestureID = 0
  private var pair: (Int64, Int64)?
  private var lastAngle = 0.0
  private(set) var rotation = 0.0
  private var track = VelocityTracker(window: 100)
  var lastX = 0.0
  var lastY = 0.0

  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {
    state = ctx.enabled(.rotation) ? .possible : .failed
    pair = nil
    rotation = 0
    track.reset(window: ctx.settings.velocityWindow)
  }

  mutating func membershipChanged(t: Double, ctx: GestureContext) {
    let fingers = ctx.table.fingers
    guard fingers.count >= 2 else {
      pair = nil
      return
    }
    let next = (fingers[0].id, fingers[1].id)
    if let p = pair, p == next { return }
    if pair == nil && track.isEmpty { track.add(t: t, x: 0, y: 0) }
    pair = next
    lastAngle = angle(fingers[0], fingers[1])
  }

  /// Updates the rotation; returns true when the rotation wants to begin now.
  mutating func fingersMoved(t: Double, ctx: inout GestureContext) -> Bool {
    guard let p = pair, state == .possible || state.isActive,
      let a = ctx.table.index(of: p.0), let b = ctx.table.index(of: p.1)
    else { return false }
    let now = angle(ctx.table.fingers[a], ctx.table.fingers[b])
    let delta = Geometry.wrap(now - lastAngle)
    lastAngle = now
    rotation += delta
    track.add(t: t, x: rotation, y: 0)
    if state == .possible {
      return abs(rotation) > ctx.settings.rotationThreshold
    }
    if delta != 0 { change(at: t, ctx: &ctx) }
    return false
  }

  private func angle(_ a: Finger, _ b: Finger) -> Double { Geometry.angle(b.x - a.x, b.y - a.y) }

  func event(_ s: GestureState, t: Double, x: Double, y: Double, ctx: GestureContext) -> GestureEvent {
    var e = ctx.event(
      gestureID, .rotation, s, t: t, x: x, y: y, touches: ctx.table.count, fingers: ctx.currentFingers())
    e.rotation = rotation
    e.rate = track.perMillisecond.x * 1000
    return e
  }
}

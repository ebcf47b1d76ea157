import TouchProtocol

/// Taps of any finger count, counted into sequences (single, double, triple...).
///
/// A press is one touch sequence: every finger moves at most `tapMaxMovement` and the last
/// lifts within `tapMaxDuration` of the first landing. The next press continues the count
/// when it lands within `multiTapInterval` of the last lift, with the same finger count and
/// within `multiTapDistance` of the last location.
///
/// Deferred mode (default) reports one event per sequence, with the final count, once the
/// sequence can grow no more: the count reached its maximum, the wait timer ran out, or a
/// press that cannot continue it appeared (it is then reported, never dropped). Immediate
/// mode reports every press at once with its running count.
struct TapRecognizer: GestureRecognizer {
  struct Pending: Sendable {
    var count: Int
    var touches: Int
    var x: Double
    var y: Double
    var fingers: [GestureFinger]
    var upT: Double
    /// The regions the tap's location hit when it happened (a later hello may move them).
    var regions: [String]
    /// Already reported (immediate mode): kept only so the next press can extend the count.
    /// Stored, not read from the settings, so a hello that changes the tap mode while a
    /// sequence waits cannot lose it.
    var reported = false
  }

  private(set) var state: RecognizerState = .failed
  /// The last press of a sequence that may still grow.
  private(set) var pending: Pending?

  /// The current press can still become a tap.
  var isCandidate: Bool { state == .possible }

  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {
    state = ctx.enabled(.tap) ? .possible : .failed
    guard let p = pending else { return }
    let far = Geometry.distance(f.x - p.x, f.y - p.y) > ctx.settings.multiTapDistance
    if t - p.upT > ctx.settings.multiTapInterval || (p.touches == 1 && far) {
      flush(at: t, ctx: &ctx)
    }
  }

  mutating func fingerJoined(t: Double, ctx: inout GestureContext) {
    // More fingers than the waiting sequence had: this press cannot continue it.
    if let p = pending, ctx.table.count > p.touches { flush(at: t, ctx: &ctx) }
  }

  mutating func fingersMoved(t: Double, ctx: inout GestureContext) -> Bool {
    guard isCandidate else { return false }
    let slop = ctx.settings.tapMaxMovement
    if ctx.table.fingers.contains(where: { $0.distanceFromDown > slop }) { reject(at: t, ctx: &ctx) }
    return false
  }

  /// A finger lifting from what can still be a multi-finger tap claims the sequence for that
  /// tap (the finger left behind must not start a one-finger gesture); the last one ends it.
  mutating func fingerLifting(_ f: Finger, last: Bool, t: Double, ctx: inout GestureContext) -> Bool {
    if last {
      sequenceEnded(t: t, ctx: &ctx)
      return false
    }
    return isCandidate && ctx.sequence.members.count >= 2
  }

  /// The press can no longer be a tap (moved, held, claimed, cancelled): a waiting sequence
  /// is complete and reported now.
  mutating func reject(at t: Double, ctx: inout GestureContext) {
    if state == .possible { state = .failed }
    flush(at: t, ctx: &ctx)
  }

  private mutating func sequenceEnded(t: Double, ctx: inout GestureContext) {
    let seq = ctx.sequence
    guard isCandidate, !seq.cancelled, t - seq.startT <= ctx.settings.tapMaxDuration,
      !seq.members.isEmpty
    else {
      reject(at: t, ctx: &ctx)
      return
    }
    state = .recognized
    let k = seq.members.count
    // Location: the centroid of where the fingers lifted, so a two-finger tap whose fingers
    // lift at different times is still located at their midpoint (article 001).
    var x = 0.0
    var y = 0.0
    for m in seq.members {
      x += m.liftX
      y += m.liftY
    }
    x /= Double(k)
    y /= Double(k)
    let fingers = seq.members.map {
      GestureFinger(id: $0.id, x: $0.downX, y: $0.downY, regions: $0.downRegions)
    }
    var count = 1
    if let p = pending, p.touches == k, seq.startT - p.upT <= ctx.settings.multiTapInterval,
      Geometry.distance(x - p.x, y - p.y) <= ctx.settings.multiTapDistance
    {
      count = p.count + 1
      pending = nil
    } else {
      flush(at: t, ctx: &ctx)
    }
    let maxCount = k == 1 ? ctx.settings.tapMaxCount : ctx.settings.multiFingerTapMaxCount
    var next = Pending(
      count: count, touches: k, x: x, y: y, fingers: fingers, upT: t, regions: ctx.regions.hit(x, y))
    if !ctx.settings.deferredTaps {
      emit(next, at: t, ctx: &ctx)
      next.reported = true
      if count < maxCount { pending = next }
    } else if count >= maxCount {
      emit(next, at: t, ctx: &ctx)
    } else {
      pending = next
    }
  }

  /// The next timer: the end of the wait for another tap, or, while a press is under way
  /// and a sequence waits on it, the moment the press becomes too long to be a tap.
  // Inlined for the same reason as `GestureArena.nextDeadline`: `ctx` is large.
  @inline(__always) func deadline(ctx: GestureContext) -> Double? {
    guard let p = pending, !p.reported else { return nil }
    if ctx.table.isEmpty { return p.upT + ctx.settings.multiTapInterval }
    return isCandidate ? ctx.sequence.startT + ctx.settings.tapMaxDuration : nil
  }

  mutating func fire(at t: Double, ctx: inout GestureContext) -> Bool {
    if ctx.table.isEmpty { flush(at: t, ctx: &ctx) } else { reject(at: t, ctx: &ctx) }
    return false
  }

  /// Reports the waiting sequence (deferred mode) and closes it.
  private mutating func flush(at t: Double, ctx: inout GestureContext) {
    guard let p = pending else { return }
    pending = nil
    if !p.reported { emit(p, at: t, ctx: &ctx) }
  }

  private func emit(_ p: Pending, at t: Double, ctx: inout GestureContext) {
    var e = GestureEvent(
      id: ctx.log.nextID(), gesture: .tap, state: .recognized, t: t, x: p.x, y: p.y, touches: p.touches,
      regions: p.regions, fingers: p.fingers)
    e.taps = p.count
    ctx.log.emit(consume e)
  }
}

import TouchProtocol

/// Runs the recognizers over one source's fingers and settles their conflicts.
///
/// Policy (documented in protocol/gestures.md, "Arena"):
/// - Simultaneous: long press + pan, pinch + rotation, pan + swipe (the swipe at lift).
/// - Exclusive: pinch and rotation beat everything else. When one begins it claims the
///   sequence: a waiting tap sequence is reported, the press fails as a tap, an active long
///   press or pan is cancelled, and until every finger is up no pan, long press, tap or swipe
///   starts. A finger lifting from a press that can still be a two-finger tap claims the
///   sequence the same way.
/// - Require to fail: a tap sequence waits for the next tap to fail (deferred mode); a pan or
///   long press beginning makes the press fail as a tap first, so the waiting sequence is
///   reported before them.
/// - A cancelled finger cancels every active gesture; the rest of the sequence starts nothing.
/// - Every gesture that began gets exactly one `ended` or `cancelled`.
struct GestureArena: Sendable {
  var ctx: GestureContext
  private var tap = TapRecognizer()
  private var longPress = LongPressRecognizer()
  private var pan = PanRecognizer()
  private var pinch = PinchRecognizer()
  private var rotation = RotationRecognizer()
  private var swipe = SwipeRecognizer()
  /// Settings from a repeated hello wait here for the current sequence to finish.
  var pendingSettings: GestureSettings?

  init(settings: GestureSettings, regions: RegionMap) {
    ctx = GestureContext(settings: settings, regions: regions)
  }

  var fingerCount: Int { ctx.table.count }

  /// The heap memory a moving frame reads first: the fingers down and the pan's velocity
  /// history (see `SourceEngine.withHotBuffers`).
  func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void) {
    body(hintAddress(of: ctx.table.fingers), arrayHeaderBytes + 2 * MemoryLayout<Finger>.stride)
    let (history, bytes) = pan.hotBytes
    body(history, bytes)
  }

  // MARK: Timers

  // Inlined: called, it was handed a copy of the whole arena (816 bytes) after every frame.
  @inline(__always) var nextDeadline: Double? {
    switch (tap.deadline(ctx: ctx), longPress.deadline) {
    case (nil, nil): return nil
    case (let a?, nil): return a
    case (nil, let b?): return b
    case (let a?, let b?): return min(a, b)
    }
  }

  /// Fires every timer due before `t` (or at `t` too, when `inclusive`), in deadline order.
  mutating func fireTimers(until t: Double, inclusive: Bool) {
    while let d = nextDeadline, inclusive ? d <= t : d < t {
      if let a = tap.deadline(ctx: ctx), a == d {
        tap.fire(at: d, ctx: &ctx)
      } else {
        // The press outlasted any tap: a waiting tap sequence is reported before the press.
        if longPress.canBegin(ctx: ctx) { tap.fail(at: d, ctx: &ctx) }
        longPress.begin(at: d, ctx: &ctx)
      }
    }
  }

  // MARK: Frames

  /// Sorts a frame into `plan` (see `IdentityTable.plan`), which comes in empty, applies it
  /// and leaves it empty; returns the errors for the source.
  mutating func apply(_ frame: Frame, maxFingers: Int, plan: inout FramePlan) -> [ProtocolError] {
    ctx.table.plan(frame, maxFingers: maxFingers, into: &plan)
    apply(plan, t: frame.t)
    // Moved out, not copied: a copy retained the list, empty or not, on every frame.
    var errors: [ProtocolError] = []
    swap(&errors, &plan.errors)
    plan.removeAll()
    return errors
  }

  private mutating func apply(_ plan: FramePlan, t: Double) {
    if !plan.cancels.isEmpty {
      cancelSequence(at: t)
      for id in plan.cancels {
        guard ctx.table.remove(id) != nil else { continue }
        ctx.log.note(.fingerCancelled(id: id))
        if ctx.table.isEmpty { endSequence(at: t) }
      }
    }
    if !plan.updates.isEmpty {
      for p in plan.updates where ctx.table.update(p, t: t) {
        ctx.log.note(.fingerMoved(id: p.id, x: p.x, y: p.y))
      }
      // Even a frame of stationary touches runs the recognizers: it feeds the velocity
      // trackers, so a finger that stops and holds slows to zero.
      moved(at: t)
    }
    if !plan.ends.isEmpty && plan.ends.count >= ctx.table.count {
      // Every finger lifts in this frame: the continuous gestures end once, with all of them.
      for id in plan.ends {
        if let f = ctx.table.finger(id) { longPress.lifted(f, t: t, ctx: &ctx) }
      }
      pan.finish(at: t, ctx: &ctx)
      pinch.finish(at: t, ctx: &ctx)
      rotation.finish(at: t, ctx: &ctx)
    }
    for id in plan.ends { lift(id, at: t) }
    for p in plan.begins { land(p, at: t) }
  }

  private mutating func moved(at t: Double) {
    guard !ctx.table.isEmpty else { return }
    tap.moved(t: t, ctx: &ctx)
    let multiAllowed = !ctx.sequence.cancelled
    if pinch.moved(t: t, allowed: multiAllowed, ctx: &ctx) {
      claimForMultiFinger(at: t)
      pinch.begin(at: t, ctx: &ctx)
    }
    if rotation.moved(t: t, allowed: multiAllowed, ctx: &ctx) {
      claimForMultiFinger(at: t)
      rotation.begin(at: t, ctx: &ctx)
    }
    longPress.moved(t: t, ctx: &ctx)
    let panAllowed = !ctx.sequence.cancelled && !ctx.sequence.multiClaimed
    if pan.moved(t: t, allowed: panAllowed, ctx: &ctx) {
      tap.fail(at: t, ctx: &ctx)
      pan.begin(at: t, ctx: &ctx)
    }
  }

  private mutating func land(_ p: TouchPoint, at t: Double) {
    let regions = ctx.regions.hit(p.x, p.y)
    ctx.table.add(p, t: t, regions: regions)
    guard let f = ctx.table.fingers.last else { return }
    ctx.log.note(.fingerLanded(id: p.id, x: p.x, y: p.y))
    if ctx.table.count == 1 {
      if let next = pendingSettings {
        ctx.settings = next
        pendingSettings = nil
      }
      ctx.sequence = TouchSequence(startT: t)
      ctx.sequence.add(f)
      tap.sequenceBegan(f, t: t, ctx: &ctx)
      longPress.sequenceBegan(f, t: t, ctx: ctx)
      pan.sequenceBegan(t: t, ctx: ctx)
      pinch.sequenceBegan(ctx: ctx)
      rotation.sequenceBegan(ctx: ctx)
      swipe.sequenceBegan(ctx: ctx)
    } else {
      ctx.sequence.add(f)
      tap.fingerJoined(count: ctx.table.count, t: t, ctx: &ctx)
      longPress.fingerJoined()
      membershipChanged(at: t)
    }
  }

  private mutating func lift(_ id: Int64, at t: Double) {
    guard let f = ctx.table.finger(id) else { return }
    ctx.sequence.lift(f)
    let last = ctx.table.count == 1
    // A finger lifting from what can still be a multi-finger tap commits the rest of the
    // sequence to that tap: the finger left behind must not start a one-finger gesture.
    if !last && tap.isCandidate && ctx.sequence.members.count >= 2 {
      ctx.sequence.multiClaimed = true
    }
    let longPressBegan = longPress.state.isActive || longPress.state == .ended
    longPress.lifted(f, t: t, ctx: &ctx)
    if last {
      pan.finish(at: t, ctx: &ctx)
      pinch.finish(at: t, ctx: &ctx)
      rotation.finish(at: t, ctx: &ctx)
      tap.sequenceEnded(t: t, ctx: &ctx)
      // A swipe is one finger all sequence long, and then the pan's translation moved with
      // that finger sample for sample: its tracker measures the finger's own velocity, so
      // fingers keep no tracker of their own (one tracker less to feed per finger and frame).
      swipe.lastFingerLifted(
        f, t: t, longPressBegan: longPressBegan, velocity: pan.velocityPerMillisecond, ctx: &ctx)
    }
    ctx.table.remove(id)
    ctx.log.note(.fingerLifted(id: id, tapSlop: f.distanceFromDown <= ctx.settings.tapMaxMovement))
    if last {
      endSequence(at: t)
    } else {
      membershipChanged(at: t)
    }
  }

  private mutating func membershipChanged(at t: Double) {
    pan.membershipChanged(t: t, ctx: &ctx)
    pinch.membershipChanged(t: t, ctx: ctx)
    rotation.membershipChanged(t: t, ctx: ctx)
  }

  private mutating func claimForMultiFinger(at t: Double) {
    ctx.sequence.multiClaimed = true
    tap.fail(at: t, ctx: &ctx)
    longPress.cancel(at: t, ctx: &ctx)
    pan.cancel(at: t, ctx: &ctx)
  }

  /// A finger was cancelled: every active gesture is cancelled, nothing new starts.
  private mutating func cancelSequence(at t: Double) {
    ctx.sequence.cancelled = true
    tap.fail(at: t, ctx: &ctx)
    longPress.cancel(at: t, ctx: &ctx)
    pan.cancel(at: t, ctx: &ctx)
    pinch.cancel(at: t, ctx: &ctx)
    rotation.cancel(at: t, ctx: &ctx)
  }

  private mutating func endSequence(at t: Double) {
    ctx.log.note(.sequenceEnded(ctx.sequence))
    if let next = pendingSettings {
      ctx.settings = next
      pendingSettings = nil
    }
  }

  /// The connection is closing: active gestures are cancelled, and a tap sequence that
  /// already completed and only waited for a possible next tap is reported (it happened).
  /// Fingers that are still down never become taps.
  mutating func cancelAll(at t: Double) {
    if !ctx.table.isEmpty {
      cancelSequence(at: t)
      for f in ctx.table.fingers { ctx.log.note(.fingerCancelled(id: f.id)) }
      ctx.table.removeAll()
      endSequence(at: t)
    }
    tap.flush(at: t, ctx: &ctx)
  }

  /// New settings apply from the next sequence, so a gesture never changes rules midway.
  mutating func update(settings: GestureSettings) {
    if ctx.table.isEmpty {
      ctx.settings = settings
    } else {
      pendingSettings = settings
    }
  }
}

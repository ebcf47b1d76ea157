import TouchProtocol

/// Runs the recognizers of a `RecognizerTable` over one source's fingers and settles their
/// claims by its conflict table, as Flutter's gesture arena settles its members' (accept,
/// reject) and UIKit its recognizers' (`require(toFail:)`, simultaneous recognition).
///
/// The arena tells every member, in table order, what the fingers did. A member that wants the
/// touch sequence claims it; the claim goes through unless the sequence was cancelled or an
/// earlier claim excluded that member. Then, in table order, the members the claimant's rule
/// excludes are cancelled (and may not claim until every finger is up), those whose failure it
/// requires are rejected, and the claimant is accepted. The standard policy is
/// `StandardTable` (protocol/gestures.md, "Arena"). Besides claims:
/// - A cancelled finger cancels every member; the rest of the sequence starts nothing.
/// - Every gesture that began gets exactly one `ended` or `cancelled`.
struct GestureArena<Table: RecognizerTable>: Sendable {
  var ctx: GestureContext
  private(set) var members = Table.Members()
  /// Settings from a repeated hello wait here for the current sequence to finish.
  var pendingSettings: GestureSettings?

  init(settings: GestureSettings, regions: RegionMap) {
    precondition(
      Table.conflicts.count == Table.Members.count, "a recognizer table needs one rule per member")
    ctx = GestureContext(settings: settings, regions: regions)
  }

  var fingerCount: Int { ctx.table.count }

  /// The heap memory a moving frame reads first: the fingers down and what the members
  /// name (the pan's velocity history; see `SourceEngine.withHotBuffers`).
  func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void) {
    body(hintAddress(of: ctx.table.fingers), arrayHeaderBytes + 2 * MemoryLayout<Finger>.stride)
    members.withHotBuffers(body)
  }

  // MARK: Claims

  /// Settles the claim of the member at `slot` by its rule, or refuses it.
  private mutating func claim(_ slot: Int, at t: Double) -> Bool {
    guard !ctx.sequence.cancelled, !ctx.sequence.excluded.contains(slot: slot) else { return false }
    let rule = Table.conflicts[slot]
    ctx.sequence.excluded.formUnion(rule.excludes)
    members.settle(
      cancelling: rule.excludes, rejecting: rule.requiresFailureOf, slot: 0, t: t, ctx: &ctx)
    members.accept(slot, slot: 0, t: t, ctx: &ctx)
    return true
  }

  // MARK: Timers

  // Inlined: called, it was handed a copy of the whole arena after every frame.
  @inline(__always) var nextDeadline: Double? { members.deadline(ctx: ctx) }

  /// Fires every timer due before `t` (or at `t` too, when `inclusive`), in deadline order
  /// (the first member in table order among equal deadlines).
  mutating func fireTimers(until t: Double, inclusive: Bool) {
    while let d = nextDeadline, inclusive ? d <= t : d < t {
      if let slot = members.fire(due: d, slot: 0, ctx: &ctx), !claim(slot, at: d) {
        // A timer's claim refused is its end: it would be due again at once.
        members.reject(slot, slot: 0, t: d, ctx: &ctx)
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
        ctx.log.note(.fingerMoved(id: p.id, x: p.x, y: p.y, pressure: p.details?.pressure ?? .nan))
      }
      // Even a frame of stationary touches runs the recognizers: it feeds the velocity
      // trackers, so a finger that stops and holds slows to zero.
      moved(at: t)
    }
    if !plan.ends.isEmpty && plan.ends.count >= ctx.table.count {
      members.allFingersLifting(plan.ends, t: t, ctx: &ctx)
    }
    for id in plan.ends { lift(id, at: t) }
    for p in plan.begins { land(p, at: t) }
  }

  private mutating func moved(at t: Double) {
    guard !ctx.table.isEmpty else { return }
    var first = 0
    while let slot = members.fingersMoved(from: first, slot: 0, t: t, ctx: &ctx) {
      // A refused claim leaves the member possible: it may claim again on a later frame.
      _ = claim(slot, at: t)
      first = slot + 1
    }
  }

  private mutating func land(_ p: TouchPoint, at t: Double) {
    let regions = ctx.regions.hit(p.x, p.y)
    ctx.table.add(p, t: t, regions: regions)
    guard let f = ctx.table.fingers.last else { return }
    ctx.log.note(.fingerLanded(id: p.id, x: p.x, y: p.y, pressure: p.details?.pressure ?? .nan))
    if ctx.table.count == 1 {
      if let next = pendingSettings {
        ctx.settings = next
        pendingSettings = nil
      }
      ctx.sequence = TouchSequence(startT: t)
      ctx.sequence.add(f)
      members.sequenceBegan(f, t: t, ctx: &ctx)
    } else {
      ctx.sequence.add(f)
      members.fingerJoined(t: t, ctx: &ctx)
    }
  }

  private mutating func lift(_ id: Int64, at t: Double) {
    guard let f = ctx.table.finger(id) else { return }
    ctx.sequence.lift(f)
    let last = ctx.table.count == 1
    var first = 0
    while let slot = members.fingerLifting(f, last: last, from: first, slot: 0, t: t, ctx: &ctx) {
      if !claim(slot, at: t) { members.reject(slot, slot: 0, t: t, ctx: &ctx) }
      first = slot + 1
    }
    ctx.table.remove(id)
    ctx.log.note(.fingerLifted(id: id, tapSlop: f.distanceFromDown <= ctx.settings.tapMaxMovement))
    if last {
      endSequence(at: t)
    } else {
      members.fingerLeft(t: t, ctx: &ctx)
    }
  }

  /// A finger was cancelled: every active gesture is cancelled, nothing new starts.
  private mutating func cancelSequence(at t: Double) {
    ctx.sequence.cancelled = true
    members.settle(
      cancelling: .all(Table.Members.count), rejecting: [], slot: 0, t: t, ctx: &ctx)
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
    // Nothing is active any more; this settles what members still hold (the waiting tap).
    members.settle(
      cancelling: .all(Table.Members.count), rejecting: [], slot: 0, t: t, ctx: &ctx)
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

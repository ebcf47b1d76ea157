import TouchProtocol

/// The fingers that are down, keyed by touch id and kept in landing order. A finger that
/// lifts is forgotten alone; every multi-touch computation reads fingers by id, never by
/// their position in a frame's array.
struct IdentityTable: Sendable {
  /// Landing order: rotation follows the first two fingers still down.
  private(set) var fingers: [Finger] = []
  /// Touches refused by the finger limit: their later phases are dropped silently.
  private var ignored: Set<Int64> = []
  /// Ids already reported as unknown, so the source hears about each only once.
  private var reportedUnknown: Set<Int64> = []
  /// Phases received for ids that were not down (diagnostics).
  private(set) var unknownTouchCount = 0
  /// Bounds the memory a misbehaving client can make us spend on remembered ids.
  static let rememberedIDLimit = 1024

  var count: Int { fingers.count }
  var isEmpty: Bool { fingers.isEmpty }

  func index(of id: Int64) -> Int? { fingers.firstIndex { $0.id == id } }
  func finger(_ id: Int64) -> Finger? { index(of: id).map { fingers[$0] } }

  /// Sorts a frame's touches into a plan and applies the identity rules: unknown ids,
  /// re-began ids, missing touches and the finger limit.
  /// `plan` comes in empty, holding list buffers from earlier frames (the caller's
  /// `FrameScratch`), which are refilled: a frame allocates nothing here.
  mutating func plan(_ frame: Frame, maxFingers: Int, into plan: inout FramePlan) {
    assert(plan.cancels.isEmpty && plan.updates.isEmpty && plan.ends.isEmpty && plan.begins.isEmpty)
    for p in frame.touches {
      // A pen above the glass is no finger: it neither lands, moves nor lifts one.
      if p.isHovering { continue }
      let down = index(of: p.id) != nil
      switch p.phase {
      case .began:
        // A began for a finger that is down means the client lost its end: cancel + begin.
        if down { plan.cancels.append(p.id) }
        if !ignored.isEmpty { ignored.remove(p.id) }
        plan.begins.append(p)
      case .moved, .stationary, .ended, .cancelled:
        if down {
          if p.phase == .cancelled {
            plan.cancels.append(p.id)
          } else {
            plan.updates.append(p)
            if p.phase == .ended { plan.ends.append(p.id) }
          }
        } else if ignored.contains(p.id) {
          if p.phase.isTerminal { ignored.remove(p.id) }
        } else {
          unknownTouchCount += 1
          if !reportedUnknown.contains(p.id) {
            if reportedUnknown.count >= Self.rememberedIDLimit { reportedUnknown.removeAll() }
            reportedUnknown.insert(p.id)
            plan.errors.append(
              ProtocolError(
                .unknownTouch, "touch \(p.id) is not down; its '\(p.phase.rawValue)' is ignored",
                seq: frame.seq))
          }
        }
      }
    }
    // The protocol lists every finger that is down in every frame; a missing one was lost.
    // (By index: iterating the fingers would copy each one, with its arrays.)
    for i in fingers.indices {
      let id = fingers[i].id
      // A finger listed only as hovering left the glass without its `ended`: missing.
      if !frame.touches.contains(where: { $0.id == id && !$0.isHovering }) { plan.cancels.append(id) }
    }
    if !ignored.isEmpty {
      ignored = ignored.filter { id in frame.touches.contains { $0.id == id } }
    }
    let downAfter = fingers.count - plan.cancels.count - plan.ends.count
    if downAfter + plan.begins.count > maxFingers {
      limit(&plan, to: maxFingers, downAfter: downAfter, seq: frame.seq)
    }
  }

  /// Keeps the first new fingers that fit under the limit and refuses the rest.
  private mutating func limit(_ plan: inout FramePlan, to maxFingers: Int, downAfter: Int, seq: Int64) {
    var downAfter = downAfter
    var kept = 0
    for i in plan.begins.indices {
      let p = plan.begins[i]
      if downAfter < maxFingers {
        plan.begins[kept] = p
        kept += 1
        downAfter += 1
      } else {
        if ignored.count < Self.rememberedIDLimit { ignored.insert(p.id) }
        plan.errors.append(
          ProtocolError(
            .tooManyFingers, "touch \(p.id) is ignored: at most \(maxFingers) fingers may be down",
            seq: seq))
      }
    }
    plan.begins.removeLast(plan.begins.count - kept)
  }

  mutating func add(_ p: TouchPoint, t: Double, regions: [String]) {
    fingers.append(Finger(id: p.id, x: p.x, y: p.y, t: t, regions: regions))
  }

  /// Moves a finger; returns true when its position changed.
  @discardableResult
  mutating func update(_ p: TouchPoint, t: Double) -> Bool {
    guard let i = index(of: p.id) else { return false }
    let changed = fingers[i].x != p.x || fingers[i].y != p.y
    fingers[i].x = p.x
    fingers[i].y = p.y
    fingers[i].t = t
    return changed
  }

  @discardableResult
  mutating func remove(_ id: Int64) -> Finger? {
    guard let i = index(of: id) else { return nil }
    return fingers.remove(at: i)
  }

  /// Forgets every finger (the connection is closing).
  mutating func removeAll() {
    fingers.removeAll()
    ignored.removeAll()
  }
}

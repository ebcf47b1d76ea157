/// An observer's bounded outgoing queue. The source is never slowed by it: when it is full,
/// the oldest message that a later one supersedes (raw touches, gesture `changed`, scene
/// state) is dropped and counted; essential messages (a gesture's began/ended/cancelled/
/// recognized, source notices, errors) are never dropped while the connection lives.
struct ObserverQueue {
  enum Outcome: Equatable {
    case queued
    /// Queued, but only by dropping messages (`dropped` grew).
    case queuedWithDrops
    /// Essential messages alone exceed the hard limit: the observer must be closed.
    case overflow
  }

  let capacity: Int
  let hardLimit: Int
  /// Messages dropped since the last `dropped` notice was taken.
  private(set) var dropped = 0
  private(set) var totalDropped = 0

  /// The one message of a queue that held none when it came: an observer that keeps up (every
  /// observer of a fan-out, as a rule) is written as soon as a message is queued, so most
  /// messages come and go here without touching the arrays below. Set only while they hold no
  /// live message; the next push moves it there first, so it stays the oldest.
  private var solo: OutgoingMessage?
  // FIFO with tombstones: slot k lives at items[k - base]; nil is a dropped message.
  private var items: [OutgoingMessage?] = []
  private var head = 0
  private var base = 0
  /// Absolute slots of queued supersedable messages, oldest first (some may be sent already).
  private var supersedableSlots: [Int] = []
  private var supersedableHead = 0
  private(set) var count = 0

  init(capacity: Int, hardLimit: Int) {
    self.capacity = max(1, capacity)
    self.hardLimit = max(capacity, hardLimit)
  }

  var isEmpty: Bool { count == 0 }

  mutating func push(_ m: OutgoingMessage) -> Outcome {
    if count == 0 {
      solo = m
      count = 1
      return .queued
    }
    if let first = solo {
      solo = nil
      append(first)
    }
    var outcome = Outcome.queued
    if count >= capacity {
      if dropOldestSupersedable() {
        outcome = .queuedWithDrops
      } else if m.supersedable {
        // Nothing older may go, so the newcomer is the one superseded.
        dropped += 1
        totalDropped += 1
        return .queuedWithDrops
      } else if count >= hardLimit {
        return .overflow
      }
    }
    if items.count - head > 2 * hardLimit { squeezeTombstones() }
    append(m)
    count += 1
    return outcome
  }

  private mutating func append(_ m: OutgoingMessage) {
    let slot = base + items.count
    items.append(m)
    if m.supersedable { supersedableSlots.append(slot) }
  }

  mutating func pop() -> OutgoingMessage? {
    if let m = solo {
      solo = nil
      count -= 1
      return m
    }
    while head < items.count {
      let m = items[head]
      items[head] = nil
      head += 1
      if let m {
        count -= 1
        compactIfWorthIt()
        return m
      }
    }
    return nil
  }

  /// Messages lost before they reached the queue (a gap in the cluster bus): reported in the
  /// next `dropped` notice like the queue's own drops.
  mutating func noteMissed(_ n: Int) {
    // n is a gap in another node's numbering, each below 2^53 (BusReader's bound on what it
    // reads): clamped there, the sums cannot overflow however many gaps come.
    dropped = min(dropped + n, Self.countLimit)
    totalDropped = min(totalDropped + n, Self.countLimit)
  }

  /// The largest count kept: the largest whole number a JSON reader holds exactly (`dropped`
  /// is sent as JSON).
  static let countLimit = 1 << 53 - 1

  /// Takes the count for a `dropped` notice and resets it.
  mutating func takeDropped() -> Int {
    defer { dropped = 0 }
    return dropped
  }

  private mutating func dropOldestSupersedable() -> Bool {
    while supersedableHead < supersedableSlots.count {
      let slot = supersedableSlots[supersedableHead]
      supersedableHead += 1
      let i = slot - base
      if i >= head, items[i] != nil {
        items[i] = nil
        count -= 1
        dropped += 1
        totalDropped += 1
        return true
      }
    }
    return false
  }

  /// Slots held, live or dropped: at most about twice `hardLimit`, popped or not.
  var heldSlots: Int { items.count - head + (solo == nil ? 0 : 1) }

  /// A queue nobody pops (a stalled observer's) still drops and appends, and `pop`'s
  /// compaction never runs: without this its tombstones, 16 bytes a message, would pile up
  /// until the connection is cut. Keeps the live messages in order under fresh slot numbers.
  /// Runs when over half the slots are tombstones, so it costs O(1) per push amortized.
  private mutating func squeezeTombstones() {
    var live: [OutgoingMessage?] = []
    live.reserveCapacity(count)
    var slots: [Int] = []
    let freshBase = base + items.count
    for case let m? in items[head...] {
      if m.supersedable { slots.append(freshBase + live.count) }
      live.append(m)
    }
    items = live
    head = 0
    base = freshBase
    supersedableSlots = slots
    supersedableHead = 0
  }

  private mutating func compactIfWorthIt() {
    guard head >= 64, head * 2 >= items.count else { return }
    items.removeFirst(head)
    base += head
    head = 0
    supersedableSlots.removeFirst(supersedableHead)
    supersedableHead = 0
    // Slots are ascending; those below base were sent already.
    if let k = supersedableSlots.firstIndex(where: { $0 >= base }) {
      supersedableSlots.removeFirst(k)
    } else {
      supersedableSlots.removeAll(keepingCapacity: true)
    }
  }
}

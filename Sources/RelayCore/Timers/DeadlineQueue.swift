/// Something with at most one place in a `DeadlineQueue`: the queue keeps its index there so
/// moving or removing it needs no search.
protocol DeadlineQueueItem: AnyObject {
  var deadlineIndex: Int? { get set }
}

/// Deadlines in server time, earliest first (the sources' engine deadlines, signed tokens'
/// expiries: see `Timers`): a binary min-heap that knows where each item sits, so a deadline
/// that moves or goes away costs O(log n).
///
/// Why not one libev timer per source: with hundreds of sources some deadline is always a
/// millisecond or two away, so every blocking wait got a timeout under the kernel's 4 ms tick,
/// which makes each wake-up dearer (ARCHITECTURE.md, "One deadline queue"). The relay instead
/// fires what is due when each event is done and keeps one wake-up timer for when the loop
/// would otherwise sleep past the earliest deadline. Hand-written: swift-collections'
/// `Heap` cannot move or remove an element it holds, which every re-armed or closed source needs.
struct DeadlineQueue<Item: DeadlineQueueItem> {
  private var entries: [(due: Double, item: Item)] = []

  var isEmpty: Bool { entries.isEmpty }
  var count: Int { entries.count }
  /// The earliest due time, if any.
  var earliest: Double? { entries.first?.due }

  /// Puts `item` in the queue at `due`, or moves it there if it is already queued.
  mutating func set(_ item: Item, due: Double) {
    if let i = item.deadlineIndex {
      let old = entries[i].due
      entries[i].due = due
      if due < old { siftUp(i) } else { siftDown(i) }
    } else {
      entries.append((due, item))
      item.deadlineIndex = entries.count - 1
      siftUp(entries.count - 1)
    }
  }

  /// Takes `item` out of the queue; nothing happens if it is not queued.
  mutating func remove(_ item: Item) {
    guard let i = item.deadlineIndex else { return }
    item.deadlineIndex = nil
    let last = entries.count - 1
    if i != last {
      entries[i] = entries[last]
      entries[i].item.deadlineIndex = i
    }
    entries.removeLast()
    if i < entries.count {
      siftUp(i)
      siftDown(i)
    }
  }

  /// Removes and returns the earliest item if it is due at or before `now`.
  mutating func popDue(_ now: Double) -> Item? {
    guard let first = entries.first, first.due <= now else { return nil }
    remove(first.item)
    return first.item
  }

  private mutating func siftUp(_ start: Int) {
    var i = start
    while i > 0 {
      let parent = (i - 1) / 2
      guard entries[i].due < entries[parent].due else { break }
      swapAt(i, parent)
      i = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var i = start
    while true {
      let l = 2 * i + 1
      guard l < entries.count else { return }
      let r = l + 1
      let child = r < entries.count && entries[r].due < entries[l].due ? r : l
      guard entries[child].due < entries[i].due else { return }
      swapAt(i, child)
      i = child
    }
  }

  private mutating func swapAt(_ a: Int, _ b: Int) {
    entries.swapAt(a, b)
    entries[a].item.deadlineIndex = a
    entries[b].item.deadlineIndex = b
  }
}

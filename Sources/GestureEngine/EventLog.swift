import TouchProtocol

/// Collects what the arena produces and numbers gesture instances.
struct EventLog: Sendable {
  private(set) var notes: [ArenaNote] = []
  /// The buffer `drain` handed out last time. The caller has let go of it by the next
  /// `drain`, so it is uniquely ours again and becomes the next `notes` without an
  /// allocation (emptying a buffer the caller still shares would copy it).
  private var handedOut: [ArenaNote] = []
  private var lastID = 0
  /// Finger notes are work for nothing without a scene, so they are kept only when one reads them.
  var recordsFingers = false

  mutating func nextID() -> Int {
    lastID += 1
    return lastID
  }

  mutating func emit(_ e: GestureEvent) { notes.append(.gesture(e)) }

  mutating func note(_ n: ArenaNote) {
    if recordsFingers { notes.append(n) }
  }

  mutating func drain() -> [ArenaNote] {
    guard !notes.isEmpty else { return [] }
    swap(&notes, &handedOut)
    notes.removeAll(keepingCapacity: true)
    return handedOut
  }
}

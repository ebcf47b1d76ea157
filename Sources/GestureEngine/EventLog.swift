import TouchProtocol

/// Collects what the arena produces and numbers gesture instances.
struct EventLog: Sendable {
  private(set) var notes: [ArenaNote] = []
  private var lastID = 0
  /// Finger notes cost an allocation per frame, so they are kept only when a scene reads them.
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
    defer { notes.removeAll(keepingCapacity: true) }
    return notes
  }
}

import TouchProtocol

/// Collects what the arena produces and numbers gesture instances.
struct EventLog: Sendable {
  /// The gesture events for the engine's output, in order, already clamped finite. They are
  /// kept apart from the notes so the output takes them as they are, without a copy each.
  private(set) var events: [GestureEvent] = []
  /// Everything that happened, in order and unclamped, for a scene to read; kept only while
  /// one does (`recordsNotes`).
  private(set) var notes: [ArenaNote] = []
  private var lastID = 0
  /// A scene reads the notes; without one they would be work for nothing.
  var recordsNotes = false

  mutating func nextID() -> Int {
    lastID += 1
    return lastID
  }

  /// Takes the event (`consuming`): the recognizer is done with it, so it moves into the
  /// list instead of being copied there. Callers write `emit(consume e)`; without it the
  /// compiler copies the event and destroys the original.
  mutating func emit(_ e: consuming GestureEvent) {
    if recordsNotes { notes.append(.gesture(copy e)) }
    // Clamped where it lands: clamping the parameter first made a local copy of it.
    events.append(e)
    Finite.clamp(&events[events.count - 1])
  }

  mutating func note(_ n: ArenaNote) {
    if recordsNotes { notes.append(n) }
  }

  /// The events since the last call; they go to the caller whole.
  mutating func takeEvents() -> [GestureEvent] { Self.handOver(&events) }

  mutating func drainNotes() -> [ArenaNote] { Self.handOver(&notes) }

  /// Hands `list` out, leaving an empty one. The caller frees it when it is done, at once,
  /// while its elements are still in the cache; the next event allocates a new list, which
  /// malloc serves from memory just freed. Keeping the buffer for reuse saved that allocation
  /// but emptied it at the source's next frame, hundreds of frames later with many sources,
  /// from memory gone cold.
  private static func handOver<T>(_ list: inout [T]) -> [T] {
    guard !list.isEmpty else { return [] }
    defer { list = [] }
    return list
  }
}

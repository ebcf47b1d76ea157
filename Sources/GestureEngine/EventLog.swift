import TouchProtocol

/// Collects what the arena produces and numbers gesture instances.
struct EventLog: Sendable {
  /// The gesture events for the engine's output, in order, already clamped finite. They are
  /// kept apart from the notes so the output takes them as they are, without a copy each.
  private(set) var events: [GestureEvent] = []
  /// The buffer `takeEvents` handed out last time (see `handOver`).
  private var eventsHandedOut: [GestureEvent] = []
  /// Everything that happened, in order and unclamped, for a scene to read; kept only while
  /// one does (`recordsNotes`).
  private(set) var notes: [ArenaNote] = []
  /// The buffer `drainNotes` handed out last time (see `handOver`).
  private var notesHandedOut: [ArenaNote] = []
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
  mutating func takeEvents() -> [GestureEvent] { Self.handOver(&events, keeping: &eventsHandedOut) }

  mutating func drainNotes() -> [ArenaNote] { Self.handOver(&notes, keeping: &notesHandedOut) }

  /// Hands `list` out and empties it, keeping a reference to what went out in `handedOut`.
  /// The caller has let go of it by the next call, so it is uniquely ours again and becomes
  /// the next list without an allocation (emptying a buffer the caller still shares would
  /// copy it); a frame with a gesture allocated a list and freed it again.
  private static func handOver<T>(_ list: inout [T], keeping handedOut: inout [T]) -> [T] {
    guard !list.isEmpty else { return [] }
    swap(&list, &handedOut)
    list.removeAllKeepingStorage()
    return handedOut
  }
}

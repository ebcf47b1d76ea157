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
  /// Emptied `fingers` lists of events handed out before, for `GestureContext.currentFingers`
  /// to fill again: each event of a pan, pinch or rotation allocated one, and destroying the
  /// event freed it.
  private var spareFingers: [[GestureFinger]] = []
  /// Enough for the events of one call; more would only hold memory.
  private static let maxSpareFingers = 8
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
  mutating func takeEvents() -> [GestureEvent] {
    guard !events.isEmpty else { return [] }
    Self.recycleFingers(of: &eventsHandedOut, into: &spareFingers)
    return Self.handOver(&events, keeping: &eventsHandedOut)
  }

  /// An empty list for an event's fingers, with room from an event handed out before.
  mutating func fingersList() -> [GestureFinger] { spareFingers.popLast() ?? [] }

  mutating func drainNotes() -> [ArenaNote] { Self.handOver(&notes, keeping: &notesHandedOut) }

  /// Takes the fingers lists out of events the caller has let go of, emptied. One the caller
  /// still shares is copied on emptying, as any array would be: correct, only not cheaper.
  private static func recycleFingers(of events: inout [GestureEvent], into spare: inout [[GestureFinger]]) {
    for i in events.indices where spare.count < maxSpareFingers {
      guard var fingers = events[i].fingers.take() else { continue }
      fingers.removeAllKeepingStorage()
      spare.append(fingers)
    }
  }

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

import TouchRelayClient

/// When each source's frames are due, so an observer can turn a message's `source` and
/// `seq` back into the scheduled send time of the frame that caused it.
struct SourceSchedule: Sendable {
  /// Due time of seq 1; seq n is due `(n - 1) * period` later (seq counts ticks, idle ones too).
  var firstNanos: UInt64
  var periodNanos: UInt64

  func due(seq: Int64) -> UInt64 { firstNanos &+ UInt64(max(0, seq - 1)) &* periodNanos }
}

/// Source id (hashed, see `MessageScanner.hash`) -> schedule. Written once per source;
/// observers keep their own copy of what they looked up, so the lock is rarely taken.
final class SourceRegistry: Sendable {
  private let table = Locked([UInt64: SourceSchedule]())

  func register(id: String, _ schedule: SourceSchedule) {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for c in id.utf8 {
      h ^= UInt64(c)
      h = h &* 0x100_0000_01b3
    }
    table.withLock { $0[h] = schedule }
  }

  func lookup(hash: UInt64) -> SourceSchedule? { table.withLock { $0[hash] } }
}

/// Set when the run winds down, so closes from then on are not counted as failures.
final class RunFlags: Sendable {
  private let state = Locked((stopping: false, interrupted: false))
  var stopping: Bool { state.withLock { $0.stopping } }
  var interrupted: Bool { state.withLock { $0.interrupted } }
  func stop(interrupted: Bool = false) {
    state.withLock {
      $0.stopping = true
      $0.interrupted = $0.interrupted || interrupted
    }
  }
}

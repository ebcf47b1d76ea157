import Metrics
import RelayCore

/// The clock the core borrows to time its engine for `/metrics` (one frame in 16).
final class EngineStopwatch: EngineTiming {
  private let timer: Metrics.Timer

  init(_ timer: Metrics.Timer) {
    self.timer = timer
  }

  func start() -> Int64 { MonotonicClock.nanoseconds() }

  func stop(started: Int64) { timer.recordNanoseconds(MonotonicClock.nanoseconds() - started) }
}

import NIOCore

/// Monotonic nanoseconds (CLOCK_MONOTONIC, the clock NIO schedules with).
@inline(__always)
func nowNanos() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

/// The run's time origin. Frames carry `t` = their scheduled send time in ms since it, so
/// an observer can tell from any message when the frame behind it was due.
struct RunClock: Sendable {
  let epoch: UInt64

  func ms(_ nanos: UInt64) -> Double { Double((nanos &- epoch) / 1000) / 1000 }
  func nanos(ms: Double) -> UInt64 { epoch &+ UInt64(max(0, ms * 1_000_000)) }
  /// Whole seconds since the epoch, for per-second series.
  func second(_ nanos: UInt64) -> Int { nanos <= epoch ? 0 : Int((nanos - epoch) / 1_000_000_000) }
}

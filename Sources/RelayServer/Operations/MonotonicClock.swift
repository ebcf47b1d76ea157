#if canImport(Glibc)
  import Glibc
#endif

/// Server time: milliseconds on the monotonic clock (never jumps with the wall clock).
enum MonotonicClock {
  static func nanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  /// A time in `nowMs()`'s milliseconds, in `nanoseconds()`'s unit.
  static func nanoseconds(ms: Double) -> Int64 { Int64(ms * 1_000_000) }

  static func nowMs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
  }
}

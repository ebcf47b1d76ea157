#if canImport(Glibc)
  import Glibc
#endif

/// Wall-clock time, for signed tokens' `exp` and `nbf` only: everything the relay times itself
/// runs on `MonotonicClock`.
enum WallClock {
  /// Unix seconds, with a fraction.
  static func nowSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1_000_000_000
  }
}

/// Events counted in fixed 100 ms windows of server time, a window starting at the first event
/// after the last one ended: how the relay tells a peer that floods (`RateGate`, `RelayCore.erred`; `FloodRules`).
struct WindowCount {
  static let ms = FloodRules.windowMs
  private(set) var start = -Double.infinity
  private var n = 0

  /// When the current window ends.
  var end: Double { start + Self.ms }

  /// Counts one event at `rt`; the count in its window, this one included.
  mutating func add(at rt: Double) -> Int {
    if rt >= end {
      start = rt
      n = 0
    }
    n += 1
    return n
  }
}

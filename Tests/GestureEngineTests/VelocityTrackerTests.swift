import ConformanceSupport
import Testing

@testable import GestureEngine

/// `VelocityTracker` keeps its window in a reused buffer, dropping old samples by moving a
/// start index and compacting only when full; it must give exactly what the plain rule gives.
@Suite struct VelocityTrackerTests {
  /// The rule written plainly: every sample kept, the window's oldest found by walking.
  struct Reference {
    var samples: [VelocityTracker.Sample] = []
    var start = 0
    var window: Double

    mutating func add(t: Double, x: Double, y: Double) {
      if let last = samples.last, last.t >= t {
        samples[samples.count - 1] = .init(t: last.t, x: x, y: y)
      } else {
        samples.append(.init(t: t, x: x, y: y))
      }
      while samples.count - start >= 2 && samples[start + 1].t <= t - window { start += 1 }
    }

    var perMillisecond: (x: Double, y: Double) {
      guard start < samples.count else { return (0, 0) }
      let (first, last) = (samples[start], samples[samples.count - 1])
      guard last.t > first.t else { return (0, 0) }
      return ((last.x - first.x) / (last.t - first.t), (last.y - first.y) / (last.t - first.t))
    }
  }

  /// Frame gaps from bursts (0.5 ms, so the buffer grows and compacts) to pauses, repeated
  /// instants and clock hiccups, windows from 10 ms to 1 s, and resets.
  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
  func matchesThePlainRule(seed: UInt64) {
    var rng = SeededLCG(state: seed &* 0x9E37_79B9_7F4A_7C15)
    func next() -> Double { rng.unit() }
    let windows: [Double] = [10, 100, 100, 250, 1000]
    var window = windows[Int(next() * Double(windows.count))]
    var tracker = VelocityTracker(window: window)
    var reference = Reference(window: window)
    var t = 0.0
    for step in 0..<20_000 {
      if next() < 0.002 {
        window = windows[Int(next() * Double(windows.count))]
        tracker.reset(window: window)
        reference = Reference(window: window)
      }
      let r = next()
      // Whole and half milliseconds meet the window's edge exactly now and then.
      let gap = r < 0.3 ? 0.5 : r < 0.5 ? 10 : r < 0.8 ? 16.5 : r < 0.9 ? 0 : r < 0.95 ? -3 : 150 * next()
      t += gap
      let (x, y) = (next() * 400, next() * 800)
      tracker.add(t: t, x: x, y: y)
      reference.add(t: t, x: x, y: y)
      let (a, b) = (tracker.perMillisecond, reference.perMillisecond)
      #expect(a.x == b.x && a.y == b.y, "seed \(seed) step \(step): \(a) != \(b)")
      #expect(tracker.isEmpty == (reference.start == reference.samples.count))
      if a.x != b.x || a.y != b.y { return }
    }
  }

  @Test func emptyAndSingleSamplesHaveNoVelocity() {
    var tracker = VelocityTracker(window: 100)
    #expect(tracker.isEmpty)
    #expect(tracker.perMillisecond == (0, 0))
    tracker.add(t: 5, x: 1, y: 2)
    #expect(!tracker.isEmpty)
    #expect(tracker.perMillisecond == (0, 0))
    tracker.add(t: 15, x: 11, y: 2)
    #expect(tracker.perMillisecond == (1, 0))
  }
}

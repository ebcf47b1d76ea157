import TouchProtocol

/// Velocity over a trailing time window: the displacement from the newest sample at or
/// before `now - window` (or the oldest sample, if the history is shorter) to the newest
/// sample. A finger that stops and holds therefore slows to zero, even when the client only
/// sends frames on movement.
struct VelocityTracker: Sendable {
  struct Sample: Sendable {
    var t: Double
    var x: Double
    var y: Double
  }

  /// The history; `samples[start...]` is the window. Samples that leave the window are
  /// dropped by moving `start`, and the array is compacted only when it is full, so a move
  /// costs no memmove of the history and the buffer, once grown, is reused for good.
  private var samples: [Sample] = []
  private var start = 0
  var window: Double

  init(window: Double) {
    self.window = window
  }

  var isEmpty: Bool { samples.count == start }

  /// Forgets the history and keeps the buffer, so a new sequence allocates nothing.
  mutating func reset(window: Double) {
    self.window = window
    samples.removeAll(keepingCapacity: true)
    start = 0
  }

  mutating func add(t: Double, x: Double, y: Double) {
    if let last = samples.last, last.t >= t {
      // Same instant (or a clock hiccup): keep the newest position, never a zero dt.
      samples[samples.count - 1] = Sample(t: last.t, x: x, y: y)
    } else {
      if samples.count == samples.capacity {
        // Full: drop the samples that left the window, and grow when the window still fills
        // half the buffer (or there is no buffer yet), so compacting, a memmove, stays rare.
        if start > 0 {
          samples.removeFirst(start)
          start = 0
        }
        if samples.count * 2 >= samples.capacity { samples.reserveCapacity(max(16, samples.capacity * 2)) }
      }
      samples.append(Sample(t: t, x: x, y: y))
    }
    let horizon = t - window
    while samples.count - start >= 2 && samples[start + 1].t <= horizon { start += 1 }
  }

  /// Where the history's buffer is and how much of it an `add` usually reads (its header and
  /// first 9 samples, which hold a 100 ms window at 60 Hz), for a caller that wants it
  /// loaded early.
  var hotBytes: (UnsafeRawPointer, Int) {
    (hintAddress(of: samples), arrayHeaderBytes + 9 * MemoryLayout<Sample>.stride)
  }

  /// Units per millisecond; zero without two distinct instants.
  var perMillisecond: (x: Double, y: Double) {
    guard start < samples.count else { return (0, 0) }
    let first = samples[start]
    let last = samples[samples.count - 1]
    guard last.t > first.t else { return (0, 0) }
    let dt = last.t - first.t
    return ((last.x - first.x) / dt, (last.y - first.y) / dt)
  }
}

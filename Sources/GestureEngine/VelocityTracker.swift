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

  private(set) var samples: [Sample] = []
  var window: Double

  init(window: Double) {
    self.window = window
    samples.reserveCapacity(8)
  }

  mutating func reset() {
    samples.removeAll(keepingCapacity: true)
  }

  mutating func add(t: Double, x: Double, y: Double) {
    if let last = samples.last, last.t >= t {
      // Same instant (or a clock hiccup): keep the newest position, never a zero dt.
      samples[samples.count - 1] = Sample(t: last.t, x: x, y: y)
    } else {
      samples.append(Sample(t: t, x: x, y: y))
    }
    let horizon = t - window
    var drop = 0
    while samples.count - drop >= 2 && samples[drop + 1].t <= horizon { drop += 1 }
    if drop > 0 { samples.removeFirst(drop) }
  }

  /// Units per millisecond; zero without two distinct instants.
  var perMillisecond: (x: Double, y: Double) {
    guard let first = samples.first, let last = samples.last, last.t > first.t else {
      return (0, 0)
    }
    let dt = last.t - first.t
    return ((last.x - first.x) / dt, (last.y - first.y) / dt)
  }
}

import TouchProtocol

/// One touch's recent samples, and where a curve fitted to them puts the touch a little later
/// (`PositionPredictor`, protocol/README.md "Predicted positions").
///
/// The fit is a least-squares quadratic in time over the samples of the last `window` ms
/// (Savitzky and Golay's local polynomial, one-sided, evaluated at the newest sample; a
/// straight line when there are too few samples for a curve). From the newest sample the
/// prediction goes on with the fitted velocity and half the fitted acceleration: a finger's
/// acceleration rarely lasts the whole horizon (a pan eases out, a flick lifts), and the full
/// term overshoots more than it gains (PERFORMANCE.md, "Predicted positions"). The
/// acceleration's part is never longer than the velocity's, so a finger that is slowing down
/// is not predicted to turn back. Taking the newest sample itself, not the fitted curve's
/// value there, as the start keeps a prediction of a finger that moved from ever lagging
/// behind the position in the same entry.
struct MotionHistory: Sendable {
  struct Sample: Sendable {
    var t: Double
    var x: Double
    var y: Double
  }

  /// The samples fitted: those at most `window` ms older than the newest.
  static let window = 30.0
  /// At most this many samples are kept (a 240 Hz source puts 8 in the window).
  static let capacity = 12
  /// The share of the fitted acceleration the prediction keeps.
  static let accelerationShare = 0.5

  private(set) var samples: [Sample] = []

  init() {
    samples.reserveCapacity(Self.capacity)
  }

  mutating func reset() { samples.removeAll(keepingCapacity: true) }

  mutating func add(t: Double, x: Double, y: Double) {
    if let last = samples.last, last.t == t {
      // The same instant (a source may send two frames with one `t`): the newest position
      // counts, and no two samples share a time.
      samples[samples.count - 1] = Sample(t: t, x: x, y: y)
    } else {
      // A clock that went back (a source resumed on another node starts its `t` over): what
      // came before is another motion's.
      if let last = samples.last, last.t > t { samples.removeAll(keepingCapacity: true) }
      samples.append(Sample(t: t, x: x, y: y))
    }
    let newest = samples[samples.count - 1].t
    var old = 0
    while old < samples.count - 1, newest - samples[old].t > Self.window || samples.count - old > Self.capacity {
      old += 1
    }
    if old > 0 { samples.removeFirst(old) }
  }

  /// Where the touch is expected `ms` ms after its newest sample; nil with no sample.
  func predicted(after ms: Double) -> (x: Double, y: Double)? {
    guard let last = samples.last else { return nil }
    let (vx, vy, ax, ay) = fit(origin: last.t)
    var dx = vx * ms, dy = vy * ms
    var ex = ax * ms * ms * Self.accelerationShare, ey = ay * ms * ms * Self.accelerationShare
    let moved = (dx * dx + dy * dy).squareRoot(), eased = (ex * ex + ey * ey).squareRoot()
    if eased > moved {
      ex *= moved / eased
      ey *= moved / eased
    }
    dx += ex
    dy += ey
    let x = last.x + dx, y = last.y + dy
    // Positions near the largest doubles could overflow: such a touch stays where it is.
    guard x.isFinite, y.isFinite else { return (last.x, last.y) }
    return (x, y)
  }

  /// Velocity (points per ms) and half the acceleration of the least-squares fit
  /// `p(τ) = c + v·τ + a·τ²`, τ in ms from `origin`: a quadratic with four samples or more, a
  /// line with two or three, at rest with one or when they span less than a millisecond.
  private func fit(origin: Double) -> (vx: Double, vy: Double, ax: Double, ay: Double) {
    let n = samples.count
    // Samples less than a millisecond apart in all tell no speed: a position's noise over
    // so short a time would read as a flick.
    guard n >= 2, samples[n - 1].t - samples[0].t >= 1 else { return (0, 0, 0, 0) }
    var s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0
    var x0 = 0.0, x1 = 0.0, x2 = 0.0, y0 = 0.0, y1 = 0.0, y2 = 0.0
    for p in samples {
      let tau = p.t - origin
      let tau2 = tau * tau
      s1 += tau
      s2 += tau2
      s3 += tau2 * tau
      s4 += tau2 * tau2
      x0 += p.x
      x1 += p.x * tau
      x2 += p.x * tau2
      y0 += p.y
      y1 += p.y * tau
      y2 += p.y * tau2
    }
    let s0 = Double(n)
    if n >= 4 {
      // The normal equations [s0 s1 s2; s1 s2 s3; s2 s3 s4]·(c, v, a) = (Σp, Σpτ, Σpτ²), by
      // Cramer's rule for v and a.
      let det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s2 * s3) + s2 * (s1 * s3 - s2 * s2)
      if abs(det) > 1e-9 * s0 * s2 * s4, det.isFinite {
        func solve(_ p0: Double, _ p1: Double, _ p2: Double) -> (v: Double, a: Double) {
          let v = s0 * (p1 * s4 - s3 * p2) - p0 * (s1 * s4 - s2 * s3) + s2 * (s1 * p2 - p1 * s2)
          let a = s0 * (s2 * p2 - p1 * s3) - s1 * (s1 * p2 - p1 * s2) + p0 * (s1 * s3 - s2 * s2)
          return (v / det, a / det)
        }
        let fx = solve(x0, x1, x2), fy = solve(y0, y1, y2)
        return (fx.v, fy.v, fx.a, fy.a)
      }
    }
    // A line: the slope of p over τ.
    let d = s0 * s2 - s1 * s1
    guard d > 0, d.isFinite else { return (0, 0, 0, 0) }
    return ((s0 * x1 - s1 * x0) / d, (s0 * y1 - s1 * y0) / d, 0, 0)
  }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One finger's movement as a hand makes it, generated from a seed: where the finger really is
/// at any time, and the samples a touch screen reports of it. For measuring predicted
/// positions (`PredictionError`, PERFORMANCE.md "Predicted positions").
///
/// The path follows the minimum-jerk profile of human point-to-point movements
/// (Flash and Hogan, "The coordination of arm movements", J. Neurosci. 5(7), 1985):
/// `s(τ) = 10τ³ − 15τ⁴ + 6τ⁵`, which eases in and out. On it, physiological tremor (two
/// sinusoids of 8 to 12 Hz, 0.2 to 0.8 points each, per axis), and the screen's samples come at
/// 60, 120 (twice as likely) or 240 Hz, each up to 1 ms (at most 15 % of the period) early or
/// late, with a little sensor noise (σ = 0.1 point).
public struct HandMotion: Sendable {
  public enum Kind: String, CaseIterable, Sendable {
    /// A drag from one place to another, 150 to 600 points in 300 to 900 ms, slightly bent.
    case pan
    /// A fling: the finger speeds up over 200 to 600 points and lifts while still fast, 45 to
    /// 70 % of the way through a 120 to 260 ms movement.
    case flick
    /// A drag along a circle's arc (a knob, a scroll wheel): 80 to 250 points of radius, 1 to
    /// 3 radians in 400 to 1200 ms.
    case arc
  }

  public struct Sample: Sendable {
    public var t: Double
    public var x: Double
    public var y: Double
  }

  public let kind: Kind
  /// When the finger lifts (ms from its first sample, at 0).
  public let lift: Double
  /// What the screen reports, from 0 to `lift`.
  public private(set) var samples: [Sample] = []

  private let duration: Double
  private let start: (x: Double, y: Double)
  private let angle: Double
  private let distance: Double
  private let bend: Double
  private let radius: Double
  private let sweep: Double
  private let tremor: [(hz: Double, amplitude: Double, phaseX: Double, phaseY: Double)]

  public init(_ kind: Kind, rng: inout SeededLCG) {
    self.kind = kind
    func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * rng.unit() }
    let hz = [60.0, 120, 120, 240][rng.below(4)]
    tremor = (0..<2).map { _ in (uniform(8, 12), uniform(0.2, 0.8), uniform(0, 2 * .pi), uniform(0, 2 * .pi)) }
    start = (uniform(100, 900), uniform(100, 900))
    angle = uniform(0, 2 * .pi)
    switch kind {
    case .pan:
      distance = uniform(150, 600)
      duration = uniform(300, 900)
      lift = duration
      bend = uniform(-0.1, 0.1) * distance
      radius = 0
      sweep = 0
    case .flick:
      distance = uniform(200, 600)
      duration = uniform(120, 260)
      lift = duration * uniform(0.45, 0.7)
      bend = 0
      radius = 0
      sweep = 0
    case .arc:
      radius = uniform(80, 250)
      sweep = uniform(1, 3) * (rng.below(2) == 0 ? -1 : 1)
      duration = uniform(400, 1200)
      lift = duration
      distance = 0
      bend = 0
    }
    let period = 1000 / hz
    var t = 0.0
    while t <= lift {
      let p = position(at: t)
      samples.append(Sample(t: t, x: p.x + 0.1 * Self.gaussian(&rng), y: p.y + 0.1 * Self.gaussian(&rng)))
      t += period + uniform(-1, 1) * min(1, period * 0.15)
    }
  }

  /// Where the finger really is at `t` (tremor included: the finger does move so).
  public func position(at t: Double) -> (x: Double, y: Double) {
    let tau = min(max(t / duration, 0), 1)
    let s = tau * tau * tau * (10 - 15 * tau + 6 * tau * tau)
    var x: Double, y: Double
    switch kind {
    case .pan, .flick:
      let u = s * distance, v = bend * sin(.pi * s)
      x = start.x + u * cos(angle) - v * sin(angle)
      y = start.y + u * sin(angle) + v * cos(angle)
    case .arc:
      let a = angle + sweep * s
      x = start.x + radius * cos(a)
      y = start.y + radius * sin(a)
    }
    for w in tremor {
      let phase = 2 * .pi * w.hz * t / 1000
      x += w.amplitude * sin(phase + w.phaseX)
      y += w.amplitude * sin(phase + w.phaseY)
    }
    return (x, y)
  }

  /// A standard normal deviate (Box–Muller).
  private static func gaussian(_ rng: inout SeededLCG) -> Double {
    let u = max(rng.unit(), 1e-12), v = rng.unit()
    return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
  }
}

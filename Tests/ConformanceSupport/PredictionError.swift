import GestureEngine
import TouchProtocol

/// How far `PositionPredictor`'s predictions are from where the finger really was MS ms after
/// each sample, over generated hand motions (`HandMotion`), against the distance it moved in
/// those ms: the error of showing the last position instead. Every `moved` sample counts whose
/// MS later is before the lift (after it the finger is nowhere).
public struct PredictionError: Sendable {
  public let kind: HandMotion.Kind
  public let ms: Double
  /// Samples measured.
  public private(set) var count = 0
  /// Mean distance from the prediction to the real position, points.
  public private(set) var meanError = 0.0
  /// Mean distance from the sample to the real position MS ms later, points.
  public private(set) var meanMoved = 0.0

  /// `meanError` as a fraction of `meanMoved`.
  public var ratio: Double { meanMoved > 0 ? meanError / meanMoved : 0 }

  /// `trials` motions of `kind` from `seed`, predicted `horizons` ms ahead (one result each).
  public static func measure(
    _ kind: HandMotion.Kind, horizons: [Double], trials: Int, seed: UInt64
  ) -> [PredictionError] {
    var rng = SeededLCG(state: seed)
    var errors = [Double](repeating: 0, count: horizons.count)
    var moved = errors
    var counts = [Int](repeating: 0, count: horizons.count)
    for _ in 0..<trials {
      let motion = HandMotion(kind, rng: &rng)
      var predictor = PositionPredictor()
      for (i, s) in motion.samples.enumerated() {
        let entry = TouchesMessageEntries.Entry(id: 1, phase: i == 0 ? .began : .moved, x: s.x, y: s.y)
        predictor.take(t: s.t, [entry])
        guard i > 0 else { continue }
        for (h, ms) in horizons.enumerated() where s.t + ms <= motion.lift {
          guard let p = predictor.predicted(1, after: ms) else { continue }
          let real = motion.position(at: s.t + ms)
          errors[h] += ((p.x - real.x) * (p.x - real.x) + (p.y - real.y) * (p.y - real.y)).squareRoot()
          moved[h] += ((s.x - real.x) * (s.x - real.x) + (s.y - real.y) * (s.y - real.y)).squareRoot()
          counts[h] += 1
        }
      }
    }
    return horizons.indices.map { h in
      var e = PredictionError(kind: kind, ms: horizons[h])
      e.count = counts[h]
      if counts[h] > 0 {
        e.meanError = errors[h] / Double(counts[h])
        e.meanMoved = moved[h] / Double(counts[h])
      }
      return e
    }
  }

  private init(kind: HandMotion.Kind, ms: Double) {
    self.kind = kind
    self.ms = ms
  }
}

import ConformanceSupport
import Testing

/// The bound for predicted positions (PERFORMANCE.md, "Predicted positions"): on
/// generated pans, flicks and arcs, the mean distance from the prediction to where the finger
/// really was is at most half the distance it moved, 16 and 33 ms ahead.
@Suite struct PredictionAccuracyTests {
  @Test(arguments: HandMotion.Kind.allCases)
  func predictionsHalveTheLagOfTheLastPosition(_ kind: HandMotion.Kind) {
    for e in PredictionError.measure(kind, horizons: [16, 33], trials: 200, seed: 40) {
      #expect(e.count > 1000, "\(kind) at \(e.ms) ms: \(e.count) samples")
      #expect(e.ratio <= 0.5, "\(kind) at \(e.ms) ms: error \(e.meanError) of \(e.meanMoved) points moved")
      // Far better than the last position, and not by predicting nothing.
      #expect(e.meanMoved > 1, "\(kind) at \(e.ms) ms")
    }
  }
}

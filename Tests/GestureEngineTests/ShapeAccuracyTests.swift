import ConformanceSupport
import Foundation
import Testing
import TouchProtocol

@testable import GestureEngine

/// The $P recognizer's accuracy on the $1 set (issue 40, protocol/gestures.md "Shapes"): one
/// template per shape, samples drawn at other sizes, positions, speeds, with jitter, reversed
/// direction and rotation up to ±15°.
@Suite struct ShapeAccuracyTests {
  typealias Point = UnistrokeShapes.Point

  static let templates: [(name: String, cloud: PointCloud)] = UnistrokeShapes.all.map {
    ($0.name, PointCloud(strokes: [$0.points])!)
  }

  /// One generated sample of `shape`: rotated by up to `maxDegrees`, scaled to 30..300 points
  /// (each axis ±10 % apart), moved anywhere on a 1000-point surface, sampled along its path
  /// at an uneven speed (2 to 20 points between samples of a 100-point shape), each sample
  /// jittered by up to 2 % of the size, and drawn backwards half the time.
  static func sample(_ shape: [Point], maxDegrees: Double, rng: inout SeededLCG) -> [Point] {
    let angle = (rng.unit() * 2 - 1) * maxDegrees * .pi / 180
    let size = 30 + rng.unit() * 270
    let sx = size / 100 * (0.9 + rng.unit() * 0.2)
    let sy = size / 100 * (0.9 + rng.unit() * 0.2)
    let ox = rng.unit() * 700, oy = rng.unit() * 700
    let c = cos(angle), s = sin(angle)
    let placed: [Point] = shape.map { p in
      let x = (p.x - 50) * sx, y = (p.y - 50) * sy
      return (ox + 150 + x * c - y * s, oy + 150 + x * s + y * c)
    }
    var out: [Point] = [placed[0]]
    var step = (2 + rng.unit() * 18) * size / 100
    for i in 1..<placed.count {
      let a = placed[i - 1], b = placed[i]
      let length = hypot(b.x - a.x, b.y - a.y)
      var along = 0.0
      while along + step < length {
        along += step
        let f = along / length
        out.append((a.x + f * (b.x - a.x), a.y + f * (b.y - a.y)))
        // The speed changes as the finger moves.
        step = max(0.5, step * (0.8 + rng.unit() * 0.4))
      }
      out.append(b)
    }
    let jitter = 0.02 * size
    out = out.map { ($0.x + (rng.unit() * 2 - 1) * jitter, $0.y + (rng.unit() * 2 - 1) * jitter) }
    if rng.below(2) == 0 { out.reverse() }
    return out
  }

  static func recognize(_ points: [Point]) -> (name: String, score: Double) {
    let cloud = PointCloud(strokes: [points])!
    let best = templates.map { ($0.name, cloud.distance(to: $0.cloud)) }.min { $0.1 < $1.1 }!
    return (best.0, ShapeTracker.score(distance: best.1))
  }

  /// Correct answers out of 16 shapes × `perShape` samples.
  static func accuracy(maxDegrees: Double, perShape: Int, seed: UInt64) -> (correct: Int, total: Int, scores: [Double]) {
    var rng = SeededLCG(state: seed)
    var correct = 0
    var scores: [Double] = []
    for shape in UnistrokeShapes.all {
      for _ in 0..<perShape {
        let r = recognize(sample(shape.points, maxDegrees: maxDegrees, rng: &rng))
        if r.name == shape.name {
          correct += 1
          scores.append(r.score)
        }
      }
    }
    return (correct, 16 * perShape, scores)
  }

  @Test func aTemplateMatchesItselfWithScoreOne() {
    for t in Self.templates { #expect(t.cloud.distance(to: t.cloud) < 1e-9) }
    #expect(ShapeTracker.score(distance: 0) == 1)
  }

  /// Issue 40's figure: at least 95 % of samples within ±15° recognized correctly.
  @Test func recognizesTheUnistrokeSetWithin15Degrees() {
    let r = Self.accuracy(maxDegrees: 15, perShape: 100, seed: 0x5_0040)
    let rate = Double(r.correct) / Double(r.total)
    let sorted = r.scores.sorted()
    print("shape accuracy ±15°: \(r.correct)/\(r.total) = \(rate * 100) %; correct scores p5 \(sorted[sorted.count / 20]) median \(sorted[sorted.count / 2])")
    #expect(rate >= 0.95)
    // The default `shapeMinScore` lets nearly every correct answer through.
    let passing = r.scores.filter { $0 >= ShapeTracker.defaultMinScore }.count
    #expect(Double(passing) / Double(r.correct) >= 0.95)
  }

  /// The rotation tolerance gestures.md states: measured, not assumed.
  @Test func accuracyFallsWithRotationBeyondTheTolerance() {
    for degrees in [0.0, 15, 20, 30, 45] {
      let r = Self.accuracy(maxDegrees: degrees, perShape: 50, seed: 0x5_0041)
      print("shape accuracy ±\(degrees)°: \(Double(r.correct) / Double(r.total) * 100) %")
    }
    let wide = Self.accuracy(maxDegrees: 90, perShape: 50, seed: 0x5_0042)
    #expect(Double(wide.correct) / Double(wide.total) < 0.95)
  }

  /// Most scribbles that are none of them stay below the default minimum score (measured:
  /// 81.5 % at 0.8; 97 % at 0.82, where only 94 % of correct answers pass).
  @Test func mostScribblesScoreBelowTheDefaultMinimum() {
    var rng = SeededLCG(state: 0x5_0043)
    var below = 0
    for _ in 0..<200 {
      let points: [Point] = (0..<40).map { _ in (rng.unit() * 200, rng.unit() * 200) }
      if Self.recognize(points).score < ShapeTracker.defaultMinScore { below += 1 }
    }
    print("random scribbles below the default minimum: \(below)/200")
    #expect(below >= 150)
  }
}

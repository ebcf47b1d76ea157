import ConformanceSupport
import GestureEngine
import Testing
import TouchProtocol

/// `PositionPredictor` (protocol/README.md, "Predicted positions"): which entries get a
/// prediction, and where it puts them.
@Suite struct PositionPredictorTests {
  typealias Entry = TouchesMessageEntries.Entry

  @Test func aSteadyFingerIsPredictedAlongItsLine() throws {
    var p = PositionPredictor()
    p.take(t: 0, [Entry(id: 7, phase: .began, x: 100, y: 100)])
    #expect(p.predicted(7, after: 33) == nil)
    // 0.5 points per ms right, 0.25 down, every 8 ms.
    for i in 1...10 {
      let t = Double(i) * 8
      p.take(t: t, [Entry(id: 7, phase: .moved, x: 100 + t / 2, y: 100 + t / 4)])
      let q = try #require(p.predicted(7, after: 20))
      #expect(abs(q.x - (100 + (t + 20) / 2)) < 1e-9 && abs(q.y - (100 + (t + 20) / 4)) < 1e-9, "\(i): \(q)")
    }
  }

  @Test func anEasingFingerIsPredictedShortOfItsLineAndNeverBehindItself() throws {
    // Slowing down: x = 200·(1 − (1 − t/100)²) over 100 ms, sampled every 5 ms.
    var p = PositionPredictor()
    func x(_ t: Double) -> Double { 200 * (1 - (1 - t / 100) * (1 - t / 100)) }
    p.take(t: 0, [Entry(id: 1, phase: .began, x: 0, y: 0)])
    for i in 1...18 {
      let t = Double(i) * 5
      p.take(t: t, [Entry(id: 1, phase: .moved, x: x(t), y: 0)])
      let q = try #require(p.predicted(1, after: 33))
      let line = x(t) + (x(t) - x(t - 5)) / 5 * 33
      #expect(q.x >= x(t), "\(t): \(q.x) behind \(x(t))")
      if i >= 4 { #expect(q.x < line, "\(t): \(q.x) not short of the straight line \(line)") }
    }
  }

  @Test func onlyMovedEntriesArePredictedAndEachSequenceStartsAfresh() throws {
    var p = PositionPredictor()
    p.take(t: 0, [Entry(id: 1, phase: .began, x: 0, y: 0), Entry(id: 2, phase: .began, x: 50, y: 50)])
    p.take(t: 10, [Entry(id: 1, phase: .moved, x: 10, y: 0), Entry(id: 2, phase: .stationary, x: 50, y: 50)])
    #expect(p.predicted(1, after: 10).map { [$0.x, $0.y] } == [20, 0])
    #expect(p.predicted(2, after: 10) == nil)
    p.take(t: 20, [Entry(id: 1, phase: .ended, x: 20, y: 0), Entry(id: 2, phase: .moved, x: 50, y: 50)])
    #expect(p.predicted(1, after: 10) == nil)
    // Not moved since it landed: predicted where it is.
    #expect(p.predicted(2, after: 10).map { [$0.x, $0.y] } == [50, 50])
    // Id 1 again: a new finger, with no speed from the last one.
    p.take(t: 30, [Entry(id: 1, phase: .began, x: 500, y: 500)])
    p.take(t: 40, [Entry(id: 1, phase: .moved, x: 500, y: 510)])
    #expect(p.predicted(1, after: 10).map { [$0.x, $0.y] } == [500, 520])
    // Id 2 went missing from the frame at 30: it is gone.
    #expect(p.predicted(2, after: 10) == nil)
  }

  @Test func aHoveringPenIsPredictedButNotAcrossLandingOrLifting() throws {
    var p = PositionPredictor()
    p.take(t: 0, [Entry(id: 3, phase: .began, x: 0, y: 0, hovering: true)])
    p.take(t: 10, [Entry(id: 3, phase: .moved, x: 10, y: 0, hovering: true)])
    #expect(p.predicted(3, after: 10).map { [$0.x, $0.y] } == [20, 0])
    // It touches the glass: its hover motion does not carry over.
    p.take(t: 20, [Entry(id: 3, phase: .moved, x: 40, y: 0)])
    #expect(p.predicted(3, after: 10).map { [$0.x, $0.y] } == [40, 0])
  }

  @Test func framesAtOneInstantOrWithWildValuesPredictNothingWild() throws {
    var p = PositionPredictor()
    p.take(t: 5, [Entry(id: 1, phase: .began, x: 0, y: 0)])
    p.take(t: 5, [Entry(id: 1, phase: .moved, x: 30, y: 0)])
    p.take(t: 5.2, [Entry(id: 1, phase: .moved, x: 60, y: 0)])
    // Samples 0.2 ms apart tell no speed.
    #expect(p.predicted(1, after: 100).map { [$0.x, $0.y] } == [60, 0])
    p.take(t: 6.5, [Entry(id: 1, phase: .moved, x: 1.7e308, y: -1.7e308)])
    let q = try #require(p.predicted(1, after: 100))
    #expect(q.x.isFinite && q.y.isFinite)
  }
}

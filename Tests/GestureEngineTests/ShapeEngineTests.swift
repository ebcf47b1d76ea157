import Foundation
import Testing
import TouchProtocol

@testable import GestureEngine

private let phone = Device(name: "test", width: 390, height: 844)
private let triangle: [[Double]] = [[50, 0], [0, 87], [100, 87], [50, 0]]
private let square: [[Double]] = [[0, 0], [0, 100], [100, 100], [100, 0], [0, 0]]
/// An "x" of two strokes: top left to bottom right, then top right to bottom left.
private let cross: [[[Double]]] = [[[0, 0], [100, 100]], [[100, 0], [0, 100]]]

private func engine(_ change: (inout GestureConfig) -> Void = { _ in }) -> SourceEngine {
  var c = GestureConfig()
  c.shapes = [
    ShapeTemplate(name: "triangle", strokes: [triangle]), ShapeTemplate(name: "square", strokes: [square]),
    ShapeTemplate(name: "x", strokes: cross),
  ]
  change(&c)
  return SourceEngine(hello: Hello(device: phone, config: c), maxFingers: 10)
}

/// Drives an engine with strokes and collects everything it said.
private struct Pen {
  var engine: SourceEngine
  var seq: Int64 = 0
  var events: [GestureEvent] = []
  var shapes: [ShapeEvent] = []

  mutating func take(_ out: EngineOutput) {
    events += out.events
    shapes += out.shapes
  }

  mutating func frame(_ t: Double, _ touches: [TouchPoint]) {
    seq += 1
    take(engine.process(Frame(seq: seq, t: t, touches: touches)))
  }

  /// One stroke along `points` (scaled by `scale`, moved by `dx`, `dy`), one sample every
  /// 16 ms, 6 per edge. Returns the time of the lift.
  mutating func stroke(
    _ points: [[Double]], at t0: Double, id: Int64 = 1, scale: Double = 1, dx: Double = 0, dy: Double = 0
  ) -> Double {
    let p = points.map { (x: $0[0] * scale + dx, y: $0[1] * scale + dy) }
    var t = t0
    frame(t, [TouchPoint(id: id, phase: .began, x: p[0].x, y: p[0].y)])
    for i in 1..<p.count {
      for k in 1...6 {
        t += 16
        let f = Double(k) / 6
        let last = i == p.count - 1 && k == 6
        frame(
          t,
          [
            TouchPoint(
              id: id, phase: last ? .ended : .moved, x: p[i - 1].x + f * (p[i].x - p[i - 1].x),
              y: p[i - 1].y + f * (p[i].y - p[i - 1].y))
          ])
      }
    }
    return t
  }

  mutating func advance(_ t: Double) { take(engine.advance(to: t)) }
}

/// Shapes drawn by example through the engine (protocol/gestures.md, "Shapes").
@Suite struct ShapeEngineTests {
  @Test func aTriangleIsReportedAfterTheGapBesideItsPan() {
    var pen = Pen(engine: engine())
    let lift = pen.stroke(triangle, at: 0, scale: 1.5, dx: 100, dy: 300)
    pen.advance(lift + 499)
    #expect(pen.shapes.isEmpty)
    pen.advance(lift + 500)
    #expect(pen.shapes.map(\.name) == ["triangle"])
    let s = pen.shapes[0]
    #expect(s.t == lift + 500)
    #expect(s.score > 0.99)
    #expect(abs(s.left - 100) < 1e-9 && abs(s.top - 300) < 1e-9)
    #expect(abs(s.width - 150) < 1e-9 && abs(s.height - 130.5) < 1e-9)
    // The pan is not withheld: the same events as an engine without templates gives.
    var plain = Pen(engine: SourceEngine(hello: Hello(device: phone), maxFingers: 10))
    _ = plain.stroke(triangle, at: 0, scale: 1.5, dx: 100, dy: 300)
    plain.advance(lift + 500)
    #expect(pen.events.map(\.gesture).contains(.pan))
    #expect(pen.events == plain.events)
    // Numbered with the other gestures.
    #expect(s.id > pen.events.map(\.id).max()!)
  }

  @Test func twoStrokesWithinTheGapAreOneDrawingInAnyOrder() {
    var pen = Pen(engine: engine())
    // The "x" backwards: the second stroke first, each drawn in the other direction.
    var t = pen.stroke([[0, 100], [100, 0]], at: 0, scale: 2, dx: 50, dy: 50)
    t = pen.stroke([[100, 100], [0, 0]], at: t + 400, id: 2, scale: 2, dx: 50, dy: 50)
    pen.advance(t + 500)
    #expect(pen.shapes.map(\.name) == ["x"])
  }

  @Test func aStrokeAfterTheGapStartsANewDrawing() {
    var pen = Pen(engine: engine())
    let t = pen.stroke([[0, 0], [100, 100]], at: 0)
    // The next frame is past the gap: the first stroke is judged on its own first, at its
    // deadline; the triangle, 300 points to the right, is a drawing of its own.
    _ = pen.stroke(triangle, at: t + 600, id: 2, dx: 300)
    pen.advance(10_000)
    #expect(pen.shapes.last?.name == "triangle")
    #expect(pen.shapes.allSatisfy { $0.width <= 100 + 1e-9 })
  }

  @Test func aTapIsNeverAShape() {
    var pen = Pen(engine: engine { $0.shapeMinScore = 0 })
    pen.frame(0, [TouchPoint(id: 1, phase: .began, x: 10, y: 10)])
    pen.frame(50, [TouchPoint(id: 1, phase: .ended, x: 12, y: 11)])
    pen.advance(5000)
    #expect(pen.shapes.isEmpty)
    #expect(pen.events.map(\.gesture) == [.tap])
  }

  @Test func aSecondFingerSpoilsTheDrawing() {
    var pen = Pen(engine: engine { $0.shapeMinScore = 0 })
    let t = pen.stroke(triangle, at: 0)
    pen.frame(t + 100, [TouchPoint(id: 5, phase: .began, x: 10, y: 10)])
    pen.frame(t + 116, [TouchPoint(id: 5, phase: .stationary, x: 10, y: 10), TouchPoint(id: 6, phase: .began, x: 90, y: 90)])
    pen.frame(t + 300, [TouchPoint(id: 5, phase: .ended, x: 40, y: 40), TouchPoint(id: 6, phase: .ended, x: 60, y: 60)])
    pen.advance(t + 5000)
    #expect(pen.shapes.isEmpty)
  }

  @Test func belowTheMinimumScoreNothingIsReported() {
    var pen = Pen(engine: engine { $0.shapeMinScore = 1 })
    // Not the template's own path: a triangle with a bent side.
    let t = pen.stroke([[50, 0], [0, 87], [60, 60], [100, 87], [50, 0]], at: 0)
    pen.advance(t + 500)
    #expect(pen.shapes.isEmpty)
  }

  @Test func withoutTemplatesOrWithShapeOffThereIsNoTracker() {
    var pen = Pen(engine: engine { $0.recognizers = ["pan"] })
    let t = pen.stroke(triangle, at: 0)
    pen.advance(t + 500)
    #expect(pen.shapes.isEmpty)
    #expect(!pen.events.isEmpty)
    #expect(ShapeTracker(config: GestureConfig(), tapSlop: 10) == nil)
  }

  @Test func theStrokeGapIsTheSources() {
    var pen = Pen(engine: engine { $0.shapeStrokeGap = 100 })
    let t = pen.stroke(triangle, at: 0)
    pen.advance(t + 100)
    #expect(pen.shapes.map(\.t) == [t + 100])
  }

  @Test func aLongScribbleIsThinnedNotUnbounded() {
    var pen = Pen(engine: engine { $0.shapeMinScore = 0 })
    // 3000 samples around a circle: more than a drawing keeps.
    var t = 0.0
    pen.frame(t, [TouchPoint(id: 1, phase: .began, x: 200, y: 100)])
    for i in 1...3000 {
      t += 4
      let a = Double(i) / 3000 * 2 * Double.pi
      pen.frame(t, [TouchPoint(id: 1, phase: i == 3000 ? .ended : .moved, x: 200 + 100 * sin(a), y: 200 - 100 * cos(a))])
    }
    pen.advance(t + 500)
    #expect(pen.shapes.count == 1)
  }

  /// Bounds on templates are `bad_value`, never a crash.
  @Test func templatesBeyondTheirLimitsAreBadValues() {
    let decoder = MessageDecoder()
    func code(_ config: String) -> ErrorCode? {
      let text = #"{"type":"hello","device":{"name":"d","width":100,"height":100},"config":"# + config + "}"
      if case .failure(let e) = decoder.decode(text) { return e.code }
      return nil
    }
    let many = (0..<65).map { #"{"name":"s\#($0)","strokes":[[[0,0],[1,1]]]}"# }.joined(separator: ",")
    let longStroke = (0..<1025).map { "[\($0),0]" }.joined(separator: ",")
    for bad in [
      #"{"shapes":[\#(many)]}"#, #"{"shapes":[{"name":"","strokes":[[[0,0],[1,1]]]}]}"#,
      #"{"shapes":[{"name":"a","strokes":[]}]}"#, #"{"shapes":[{"name":"a","strokes":[[]]}]}"#,
      #"{"shapes":[{"name":"a","strokes":[[[0,0,0]]]}]}"#, #"{"shapes":[{"name":"a","strokes":[[[5,5],[5,5]]]}]}"#,
      #"{"shapes":[{"name":"a","strokes":[[\#(longStroke)]]}]}"#, #"{"shapeMinScore":1.01}"#,
      #"{"shapeStrokeGap":-1}"#,
    ] {
      #expect(code(bad) == .badValue, "\(bad.prefix(80))")
    }
    #expect(code(#"{"shapes":[{"name":"a","strokes":[[[0,0],[1,1]]]}],"shapeMinScore":0.5}"#) == nil)
  }
}

import Foundation
import GestureEngine
import TouchProtocol

/// Drawings judged against `hello.config.shapes`: 16 templates made from geometry (regular
/// polygons, stars, zig-zags, a spiral and a circle), and each drawn once as one stroke at
/// 60 Hz, a little off its template (another size and place, a slight wobble), then left for
/// the stroke gap so the engine judges it. `run(shapes:)` draws them all on a new engine with
/// the templates or without any: the difference is what the judgements cost.
public struct ShapeTrace: Sendable {
  public let templates: [ShapeTemplate]
  /// One drawing per template, as frames.
  public let drawings: [[Frame]]

  public init(seed: UInt64 = 7) {
    var shapes: [(String, [[Double]])] = []
    for n in 3...8 { shapes.append(("\(n)-gon", Self.polygon(sides: n, step: 1))) }
    for n in [5, 7] { shapes.append(("\(n)-star", Self.polygon(sides: n, step: n / 2))) }
    for teeth in 2...5 { shapes.append(("zigzag-\(teeth)", Self.zigzag(teeth: teeth))) }
    shapes.append(("spiral", Self.spiral()))
    shapes.append(("circle", Self.polygon(sides: 36, step: 1)))
    shapes.append(("check", [[0, 50], [30, 90], [100, 0]]))
    shapes.append(("hook", [[0, 0], [0, 100], [60, 100], [60, 60]]))
    templates = shapes.map { ShapeTemplate(name: $0.0, strokes: [$0.1]) }
    var rng = SplitMix(seed: seed)
    var t = 1000.0
    var seq: Int64 = 0
    var drawings: [[Frame]] = []
    for (_, points) in shapes {
      let scale = 1.5 + rng.unit()
      let dx = 40 + rng.unit() * 100
      let dy = 200 + rng.unit() * 300
      var frames: [Frame] = []
      let samples = 6
      for i in 0..<points.count {
        for k in (i == 0 ? samples : 1)...samples {
          let a = i == 0 ? points[0] : points[i - 1]
          let f = Double(k) / Double(samples)
          let x = (a[0] + f * (points[i][0] - a[0])) * scale + dx + (rng.unit() - 0.5) * 2
          let y = (a[1] + f * (points[i][1] - a[1])) * scale + dy + (rng.unit() - 0.5) * 2
          let phase: TouchPhase = i == 0 ? .began : (i == points.count - 1 && k == samples ? .ended : .moved)
          seq += 1
          let touch = TouchPoint(id: Int64(drawings.count + 1), phase: phase, x: x, y: y)
          frames.append(Frame(seq: seq, t: t, touches: [touch]))
          t += 1000.0 / 60
        }
      }
      drawings.append(frames)
      // Past the default stroke gap, so each drawing is judged before the next begins.
      t += 1000
    }
    self.drawings = drawings
  }

  /// Draws every drawing on a new engine (with the templates or none) and lets each be judged;
  /// returns how many drawings were reported as their own template's shape.
  public func run(shapes: Bool) -> Int {
    var config = GestureConfig()
    if shapes { config.shapes = templates }
    var engine = SourceEngine(
      hello: Hello(device: Device(name: "bench", width: 412, height: 915), config: config), maxFingers: 10)
    var correct = 0
    for (template, frames) in zip(templates, drawings) {
      var reported: [ShapeEvent] = []
      for f in frames { reported += engine.process(f).shapes }
      reported += engine.advance(to: (frames.last?.t ?? 0) + 600).shapes
      correct += reported.filter { $0.name == template.name }.count
    }
    return correct
  }

  /// `sides` corners on a circle in a 100-point box, joined every `step`-th, back to the start.
  static func polygon(sides: Int, step: Int) -> [[Double]] {
    (0...sides).map { i -> [Double] in
      let turn = Double(i * step % sides) / Double(sides)
      let a: Double = turn * 2 * Double.pi - Double.pi / 2
      return [50 + 50 * cos(a), 50 + 50 * sin(a)]
    }
  }

  static func zigzag(teeth: Int) -> [[Double]] {
    (0...(2 * teeth)).map { i -> [Double] in
      let x = Double(i) * 100 / Double(2 * teeth)
      let y: Double = i % 2 == 0 ? 0 : 40
      return [x, y]
    }
  }

  static func spiral() -> [[Double]] {
    (0...40).map { i -> [Double] in
      let f = Double(i) / 40
      let a: Double = f * 4 * Double.pi
      let r: Double = 5 + 45 * f
      return [50 + r * cos(a), 50 + r * sin(a)]
    }
  }
}

import Foundation
import TouchProtocol

/// What a source sends on each tick of its schedule: the touches of one frame, or nil when
/// no finger is down (a phone sends nothing then).
protocol TouchTrace {
  mutating func next() -> [TouchPoint]?
}

/// The generated scenarios. `mixed` draws each next gesture from all the others.
enum Scenario: String, CaseIterable, Sendable {
  case tap, doubletap, longpress, pan, swipe, pinch, rotation, mixed

  static let gestures: [Scenario] = [.tap, .doubletap, .longpress, .pan, .swipe, .pinch, .rotation]
  /// How often `mixed` picks each gesture: pans and taps dominate real use.
  static let mixedWeights: [Double] = [3, 1, 1, 3, 1, 1, 1]
}

/// One finger's path within a gesture: down at `start`, up at `end` (ms from the gesture's
/// start), at `position(progress)` with progress going 0...1.
struct Stroke {
  var start: Double
  var end: Double
  var position: (Double) -> (x: Double, y: Double)
}

/// A gesture as strokes plus the quiet time after it.
struct GestureShape {
  let strokes: [Stroke]
  let gapAfter: Double
  /// Read every frame, so worked out once.
  let duration: Double

  init(strokes: [Stroke], gapAfter: Double) {
    self.strokes = strokes
    self.gapAfter = gapAfter
    duration = (strokes.map(\.end).max() ?? 0) + gapAfter
  }
}

/// Synthesizes human-like gestures on a surface and samples them at the frame rate.
/// Timings follow UIKit's recognizers' defaults, so the server's engine sees what it would
/// see from a phone: taps under 150 ms and 10 pt, double taps within 300 ms, long presses
/// over 500 ms, pans past their threshold, two-finger pinches and rotations.
struct TraceGenerator: TouchTrace {
  let scenario: Scenario
  let width: Double
  let height: Double
  let periodMs: Double
  private var rng: SeededRandom
  private var shape: GestureShape?
  /// Time within the current gesture, ms.
  private var clock = 0.0
  /// Touch ids, increasing per source as iOS and Android number pointers.
  private var nextTouchID: Int64 = 1
  private var ids: [Int64] = []
  private var down: [Bool] = []
  private var finished: [Bool] = []
  private var last: [(x: Double, y: Double)] = []

  init(scenario: Scenario, width: Double, height: Double, rate: Double, seed: UInt64) {
    self.scenario = scenario
    self.width = width
    self.height = height
    self.periodMs = 1000 / rate
    self.rng = SeededRandom(seed: seed)
  }

  mutating func next() -> [TouchPoint]? {
    if shape == nil || (clock >= shape!.duration && !finished.contains(false)) {
      begin(makeShape())
    }
    let shape = self.shape!
    var touches: [TouchPoint] = []
    for (i, s) in shape.strokes.enumerated() where !finished[i] {
      guard clock >= s.start else { continue }
      let progress = s.end > s.start ? min(1, (clock - s.start) / (s.end - s.start)) : 1
      var p = s.position(progress)
      p.x = min(max(p.x, 0), width)
      p.y = min(max(p.y, 0), height)
      let phase: TouchPhase
      if !down[i] {
        down[i] = true
        phase = .began
      } else if clock >= s.end {
        finished[i] = true
        phase = .ended
      } else {
        phase = (p.x == last[i].x && p.y == last[i].y) ? .stationary : .moved
      }
      last[i] = p
      touches.append(
        TouchPoint(
          id: ids[i], phase: phase, x: (p.x * 10).rounded() / 10, y: (p.y * 10).rounded() / 10,
          force: nil, radiusX: 9, radiusY: 9))
    }
    clock += periodMs
    return touches.isEmpty ? nil : touches
  }

  private mutating func begin(_ s: GestureShape) {
    shape = s
    clock = 0
    ids = s.strokes.map { _ in
      defer { nextTouchID += 1 }
      return nextTouchID
    }
    down = Array(repeating: false, count: s.strokes.count)
    finished = down
    last = Array(repeating: (-1, -1), count: s.strokes.count)
  }

  private mutating func makeShape() -> GestureShape {
    var kind = scenario
    if kind == .mixed {
      let total = Scenario.mixedWeights.reduce(0, +)
      var pick = Double.random(in: 0..<total, using: &rng)
      kind = Scenario.gestures.last!
      for (g, w) in zip(Scenario.gestures, Scenario.mixedWeights) {
        if pick < w {
          kind = g
          break
        }
        pick -= w
      }
    }
    let margin = 60.0
    let cx = Double.random(in: margin...(width - margin), using: &rng)
    let cy = Double.random(in: margin...(height - margin), using: &rng)
    // A finger is never perfectly still: a small tremor of about one point.
    let jx = Double.random(in: -1...1, using: &rng)
    let jy = Double.random(in: -1...1, using: &rng)
    let still: (Double) -> (x: Double, y: Double) = { p in (cx + jx * p, cy + jy * p) }
    switch kind {
    case .tap:
      let held = Double.random(in: 50...110, using: &rng)
      // The gap exceeds the double-tap wait so each tap is recognized on its own.
      return GestureShape(strokes: [Stroke(start: 0, end: held, position: still)], gapAfter: 400)
    case .doubletap:
      let held = Double.random(in: 50...90, using: &rng)
      let between = Double.random(in: 80...160, using: &rng)
      let second = Stroke(start: held + between, end: 2 * held + between) { p in
        (cx + 2 + jx * p, cy + 1 + jy * p)
      }
      return GestureShape(
        strokes: [Stroke(start: 0, end: held, position: still), second], gapAfter: 400)
    case .longpress:
      let held = Double.random(in: 650...1000, using: &rng)
      return GestureShape(strokes: [Stroke(start: 0, end: held, position: still)], gapAfter: 250)
    case .pan, .swipe:
      let fast = kind == .swipe
      let angle = Double.random(in: 0..<(2 * .pi), using: &rng)
      let distance =
        fast ? Double.random(in: 150...260, using: &rng) : Double.random(in: 120...300, using: &rng)
      let time =
        fast ? Double.random(in: 90...160, using: &rng) : Double.random(in: 350...800, using: &rng)
      let dx = cos(angle) * distance
      let dy = sin(angle) * distance
      let stroke = Stroke(start: 0, end: time) { p in
        // Ease in and out, as a finger accelerates and settles.
        let e = p * p * (3 - 2 * p)
        return (cx + dx * e + jx * sin(p * 9), cy + dy * e + jy * cos(p * 7))
      }
      return GestureShape(strokes: [stroke], gapAfter: fast ? 250 : 200)
    case .pinch:
      let from = Double.random(in: 60...140, using: &rng)
      let to =
        from
        * (Bool.random(using: &rng)
          ? Double.random(in: 1.6...2.4, using: &rng) : Double.random(in: 0.4...0.6, using: &rng))
      let angle = Double.random(in: 0..<Double.pi, using: &rng)
      let time = Double.random(in: 400...800, using: &rng)
      return GestureShape(
        strokes: twoFingers(cx, cy, time) { p in (from + (to - from) * p, angle) }, gapAfter: 250)
    case .rotation:
      let radius = Double.random(in: 50...90, using: &rng)
      let turn = Double.random(in: 0.8...1.6, using: &rng) * (Bool.random(using: &rng) ? 1 : -1)
      let start = Double.random(in: 0..<Double.pi, using: &rng)
      let time = Double.random(in: 500...900, using: &rng)
      return GestureShape(
        strokes: twoFingers(cx, cy, time) { p in (2 * radius, start + turn * p) }, gapAfter: 250)
    case .mixed:
      fatalError("mixed is resolved above")
    }
  }

  /// Two fingers around a centre; `geometry(progress)` gives their spread and angle. The
  /// second finger lands 30 ms after the first, as real two-finger gestures do.
  private func twoFingers(
    _ cx: Double, _ cy: Double, _ time: Double,
    _ geometry: @escaping (Double) -> (spread: Double, angle: Double)
  ) -> [Stroke] {
    func finger(_ sign: Double) -> (Double) -> (x: Double, y: Double) {
      { p in
        let g = geometry(p)
        return (cx + sign * cos(g.angle) * g.spread / 2, cy + sign * sin(g.angle) * g.spread / 2)
      }
    }
    return [
      Stroke(start: 0, end: time, position: finger(1)),
      Stroke(start: 30, end: time + 10, position: finger(-1)),
    ]
  }
}

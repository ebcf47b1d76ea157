@testable import GestureEngine
import TouchProtocol

/// Drives one arena of table `T` as the engine does, and collects its events.
struct ArenaDriver<T: RecognizerTable> {
  var arena: GestureArena<T>
  var events: [GestureEvent] = []
  private var plan = FramePlan()
  private var seq: Int64 = 0

  init(config: GestureConfig? = nil) {
    arena = GestureArena(settings: GestureSettings(config: config), regions: RegionMap(regions: []))
  }

  var kinds: [String] { events.map { "\($0.gesture.rawValue).\($0.state.rawValue)" } }

  mutating func frame(_ t: Double, _ touches: [(Int64, TouchPhase, Double, Double)]) {
    arena.fireTimers(until: t, inclusive: false)
    seq += 1
    let f = Frame(seq: seq, t: t, touches: touches.map { TouchPoint(id: $0.0, phase: $0.1, x: $0.2, y: $0.3) })
    _ = arena.apply(f, maxFingers: 10, plan: &plan)
    events += arena.ctx.log.takeEvents()
  }

  mutating func advance(to t: Double) {
    arena.fireTimers(until: t, inclusive: true)
    events += arena.ctx.log.takeEvents()
  }

  /// One finger, 5 pt in 50 ms: past a pan threshold of 2, within the tap tolerance.
  mutating func shortDrag() {
    frame(0, [(1, .began, 100, 100)])
    frame(16, [(1, .moved, 103, 100)])
    frame(33, [(1, .moved, 105, 100)])
    frame(50, [(1, .ended, 105, 100)])
    advance(to: 1000)
  }

  /// Two fingers that move together 30 pt, then spread 60 pt apart.
  mutating func dragAndSpread() {
    frame(0, [(1, .began, 100, 100), (2, .began, 200, 100)])
    for i in 1...3 {
      let dx = Double(i) * 10
      frame(Double(i) * 16, [(1, .moved, 100 + dx, 100), (2, .moved, 200 + dx, 100)])
    }
    for i in 1...3 {
      let s = Double(i) * 10
      frame(48 + Double(i) * 16, [(1, .moved, 130 - s, 100), (2, .moved, 230 + s, 100)])
    }
    frame(120, [(1, .ended, 100, 100), (2, .ended, 260, 100)])
    advance(to: 1000)
  }

  /// Three fingers land together and drag 60 pt down.
  mutating func threeFingerDrag() {
    frame(0, [(1, .began, 100, 100), (2, .began, 150, 100), (3, .began, 200, 100)])
    for i in 1...6 {
      let dy = Double(i) * 10
      frame(Double(i) * 16, [(1, .moved, 100, 100 + dy), (2, .moved, 150, 100 + dy), (3, .moved, 200, 100 + dy)])
    }
    frame(112, [(1, .ended, 100, 160), (2, .ended, 150, 160), (3, .ended, 200, 160)])
    advance(to: 1000)
  }
}

import ConformanceSupport
import Foundation
import GestureEngine
import Testing
import TouchProtocol

/// A swipe's velocity is the finger's own over the last `swipeVelocityWindow` before the lift
/// (protocol/gestures.md): from its newest position at or before `lift - window` (its first
/// one if the flick is shorter) to where it lifted. Checked against that definition computed
/// directly from the positions sent, over random flicks with uneven frame spacing, including
/// flicks that stop and hold before the lift.
@Suite struct SwipeVelocityTests {
  @Test(arguments: 1...30)
  func swipeVelocityIsTheFingersOwnOverTheWindow(seed: UInt64) throws {
    var rng = SeededLCG(state: seed &* 0x9E37_79B9_7F4A_7C15 &+ 0x632B_E59B_D9B4_E019)
    func unit() -> Double { rng.unit() }
    var config = GestureConfig()
    config.swipeVelocityWindow = [60.0, 100, 150][Int(seed) % 3]
    let window = config.swipeVelocityWindow!
    var engine = SourceEngine(
      hello: Hello(device: Device(name: "t", width: 1000, height: 1000), config: config), maxFingers: 10)
    // Down, a fast flick of random speed and direction with 5-25 ms between frames, then
    // (one run in three) a short hold, then the lift.
    var samples: [(t: Double, x: Double, y: Double)] = [(0, 500, 500)]
    let speed = 1.5 + unit() * 2  // pt/ms
    let angle = unit() * 2 * Double.pi
    while samples.last!.t < 160 + unit() * 100 {
      let last = samples.last!
      let dt = 5 + (unit() * 20).rounded()
      samples.append((last.t + dt, last.x + cos(angle) * speed * dt, last.y + sin(angle) * speed * dt))
    }
    if seed % 3 == 0 {
      let last = samples.last!
      samples.append((last.t + 20 + (unit() * 20).rounded(), last.x, last.y))
    }
    var events: [GestureEvent] = []
    for (i, s) in samples.enumerated() {
      let phase: TouchPhase = i == 0 ? .began : i == samples.count - 1 ? .ended : .moved
      let frame = Frame(seq: Int64(i + 1), t: s.t, touches: [TouchPoint(id: 1, phase: phase, x: s.x, y: s.y)])
      events += engine.process(frame).events
    }
    let lift = samples.last!
    let anchor = samples.last { $0.t <= lift.t - window } ?? samples[0]
    let expected = (
      x: (lift.x - anchor.x) / (lift.t - anchor.t) * 1000, y: (lift.y - anchor.y) / (lift.t - anchor.t) * 1000
    )
    let swipe = try #require(events.first { $0.gesture == .swipe }, "no swipe in \(events.map(\.gesture))")
    let v = try #require(swipe.velocity)
    #expect(abs(v.x - expected.x) < 1e-6 && abs(v.y - expected.y) < 1e-6, "\(v) vs \(expected)")
  }
}

import GestureEngine
import Testing
import TouchProtocol

/// A repeated hello must not lose a tap that is waiting for a possible second one.
@Suite struct SettingsChangeTests {
  let device = Device(name: "p", width: 390, height: 844)

  @Test func aWaitingTapSurvivesASwitchToImmediateMode() {
    let button = Region(id: "button", x: 0, y: 0, width: 100, height: 100)
    var engine = SourceEngine(hello: Hello(device: device, regions: [button]), maxFingers: 10)
    _ = engine.process(Frame(seq: 1, t: 1000, touches: [TouchPoint(id: 1, phase: .began, x: 50, y: 50)]))
    _ = engine.process(Frame(seq: 2, t: 1050, touches: [TouchPoint(id: 1, phase: .ended, x: 50, y: 50)]))
    #expect(engine.nextDeadline == 1350)
    var config = GestureConfig()
    config.tapMode = "immediate"
    // The new hello arrives before the double-tap wait ran out (as on a busy server).
    _ = engine.update(hello: Hello(device: device, scene: "flatcube", config: config))
    let out = engine.advance(to: 1350)
    let taps = out.events.filter { $0.gesture == .tap }
    #expect(taps.count == 1, "\(out.events)")
    #expect(taps.first?.t == 1350)
    #expect(taps.first?.x == 50)
    // Hit-tested where and when it happened, not against the new hello's regions.
    #expect(taps.first?.regions == ["button"])
  }
}

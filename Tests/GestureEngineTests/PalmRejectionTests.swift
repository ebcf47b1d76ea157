import GestureEngine
import Testing
import TouchProtocol

private let tablet = Device(name: "tablet", width: 820, height: 1180)

private func finger(_ id: Int64, _ phase: TouchPhase, _ x: Double, _ y: Double, radius: Double? = nil)
  -> TouchPoint
{
  TouchPoint(id: id, phase: phase, x: x, y: y, details: radius.map { ContactDetails(radius: $0) })
}

private func pen(_ id: Int64, _ phase: TouchPhase, _ x: Double, _ y: Double, hover: Bool? = nil) -> TouchPoint {
  TouchPoint(id: id, phase: phase, x: x, y: y, details: ContactDetails(kind: .pen, hover: hover))
}

private func engine(_ palm: PalmConfig? = nil) -> SourceEngine {
  var config = GestureConfig()
  config.palm = palm
  return SourceEngine(hello: Hello(device: tablet, config: config), maxFingers: 10)
}

/// Runs frames (one every `dt` ms from 0, `seq` from 1) and a final timer tick; every event.
private func run(_ e: inout SourceEngine, _ frames: [[TouchPoint]], dt: Double = 50) -> [GestureEvent] {
  var events: [GestureEvent] = []
  for (i, touches) in frames.enumerated() {
    events += e.process(Frame(seq: Int64(i + 1), t: Double(i) * dt, touches: touches)).events
  }
  events += e.advance(to: Double(frames.count) * dt + 5000).events
  return events
}

/// Palm rejection (gestures.md, "Palm rejection") through the engine's public face.
@Suite struct PalmRejectionTests {
  @Test func aTouchAtLeastTheRadiusIsAPalmAndTapsNothing() {
    var e = engine()
    #expect(e.markPalms(Frame(seq: 1, t: 0, touches: [finger(1, .began, 100, 100, radius: 80)])) == [1])
    _ = e.process(Frame(seq: 1, t: 0, touches: [finger(1, .began, 100, 100, radius: 80)]))
    _ = e.process(Frame(seq: 2, t: 50, touches: [finger(1, .ended, 100, 100, radius: 80)]))
    #expect(e.advance(to: 2000).events.isEmpty)
    #expect(e.nextDeadline == nil)

    // Just under the radius: a fingertip, and its tap.
    var small = engine()
    let events = run(
      &small, [[finger(1, .began, 100, 100, radius: 79.9)], [finger(1, .ended, 100, 100, radius: 79.9)]])
    #expect(events.map(\.gesture) == [.tap])
    #expect(events.first?.touches == 1)
  }

  @Test func aFingerLandingWhileAPenTouchesIsAPalmAndOneDownBeforeStaysAFinger() {
    var e = engine()
    #expect(e.markPalms(Frame(seq: 1, t: 0, touches: [finger(1, .began, 50, 50)])) == [])
    _ = e.process(Frame(seq: 1, t: 0, touches: [finger(1, .began, 50, 50)]))
    let landing = Frame(
      seq: 2, t: 20, touches: [finger(1, .stationary, 50, 50), pen(9, .began, 300, 300), finger(2, .began, 400, 400)])
    #expect(e.markPalms(landing) == [2])
    _ = e.process(landing)
    #expect(e.fingersDown == 2)  // finger 1 and the pen, not the palm
    // Still a palm after the pen lifted, until it ends.
    let after = Frame(seq: 3, t: 40, touches: [finger(1, .stationary, 50, 50), finger(2, .moved, 420, 400)])
    #expect(e.markPalms(after) == [2])
    _ = e.process(after)
    #expect(e.fingersDown == 1)

    // A hovering pen is not down: a finger landing beside it is a finger.
    var hovering = engine()
    let beside = Frame(seq: 1, t: 0, touches: [pen(9, .began, 300, 300, hover: true), finger(2, .began, 400, 400)])
    #expect(hovering.markPalms(beside) == [])
  }

  /// The same two-finger pinch with and without a palm landing in its middle: every event
  /// equal, scale and centre to the last bit.
  @Test func aPalmDuringAPinchLeavesScaleAndCentreExactlyAsTheTwoFingersAlone() {
    let xs: [(Double, Double)] = [(100, 200), (90, 210), (70, 230), (61.5, 238.25), (40, 260), (33, 271.5)]
    var plain: [[TouchPoint]] = []
    var palmed: [[TouchPoint]] = []
    for (i, (a, b)) in xs.enumerated() {
      let phase: TouchPhase = i == 0 ? .began : (i == xs.count - 1 ? .ended : .moved)
      let fingers = [finger(1, phase, a, 400 + Double(i)), finger(2, phase, b, 410 - Double(i) * 0.5)]
      plain.append(fingers)
      switch i {
      case 0, 1: palmed.append(fingers)
      case 2: palmed.append(fingers + [finger(3, .began, 300, 700, radius: 120)])
      default: palmed.append(fingers + [finger(3, .moved, 300 + Double(i) * 7, 700 - Double(i), radius: 130)])
      }
    }
    palmed.append([finger(3, .ended, 340, 690, radius: 130)])
    var a = engine()
    var b = engine()
    let alone = run(&a, plain)
    let withPalm = run(&b, palmed)
    let pinches = alone.filter { $0.gesture == .pinch }
    #expect(pinches.count >= 4)
    #expect(pinches.last?.scale.map { $0 > 2 } == true)
    #expect(withPalm == alone)
    for (p, q) in zip(withPalm, alone) {
      #expect(p.scale == q.scale && p.x == q.x && p.y == q.y && p.touches == 2)
    }
  }

  @Test func aPalmIsNeverCountedInTouches() {
    var e = engine()
    var frames: [[TouchPoint]] = []
    for i in 0..<8 {
      let phase: TouchPhase = i == 0 ? .began : (i == 7 ? .ended : .moved)
      let palmPhase: TouchPhase = i == 0 ? .began : .stationary
      frames.append([finger(1, phase, 100 + Double(i) * 20, 200), finger(2, palmPhase, 500, 900, radius: 150)])
    }
    frames.append([finger(2, .ended, 500, 900, radius: 150)])
    let events = run(&e, frames)
    #expect(events.contains { $0.gesture == .pan && $0.state == .began })
    #expect(events.allSatisfy { $0.touches == 1 })
    #expect(events.allSatisfy { ($0.fingers ?? []).allSatisfy { $0.id == 1 } })
    #expect(events.filter { $0.gesture == .pan && $0.state == .ended }.map(\.t) == [350])
  }

  @Test func aFingerThatGrowsIntoAPalmIsCancelled() {
    var e = engine()
    let events = run(
      &e,
      [
        [finger(1, .began, 100, 100, radius: 20)],
        [finger(1, .moved, 130, 100, radius: 30)],
        [finger(1, .moved, 140, 100, radius: 95)],
        [finger(1, .moved, 200, 100, radius: 40)],
        [finger(1, .ended, 200, 100, radius: 40)],
      ])
    #expect(
      events.map { "\($0.gesture.rawValue) \($0.state.rawValue) \($0.t)" } == ["pan began 50.0", "pan cancelled 100.0"])
  }

  @Test func palmFalseTurnsItOffAndNoRadiusNoPenMeansNoPalm() {
    var off = engine(.off)
    let big = Frame(
      seq: 1, t: 0,
      touches: [finger(1, .began, 100, 100, radius: 500), pen(9, .began, 300, 300), finger(2, .began, 10, 10)])
    #expect(off.markPalms(big) == [])
    _ = off.process(big)
    #expect(off.fingersDown == 3)

    var plain = engine()
    #expect(plain.markPalms(Frame(seq: 1, t: 0, touches: [finger(1, .began, 1, 1), finger(2, .began, 9, 9)])) == [])

    // A radius of its own; `whilePen: false` leaves fingers beside a pen alone.
    var custom = engine(PalmConfig(radius: 40, whilePen: false))
    let f = Frame(
      seq: 1, t: 0, touches: [finger(1, .began, 1, 1, radius: 40), pen(9, .began, 300, 300), finger(2, .began, 9, 9)])
    #expect(custom.markPalms(f) == [1])
  }

  /// A hello that turns palm rejection off makes no new palm; one still down stays a palm
  /// until it ends (its later phases are no unknown touches).
  @Test func turnedOffAPalmStillDownStaysOneUntilItEnds() {
    var e = engine()
    let land = Frame(seq: 1, t: 0, touches: [finger(1, .began, 100, 100, radius: 96)])
    #expect(e.markPalms(land) == [1])
    _ = e.process(land)
    var config = GestureConfig()
    config.palm = .off
    _ = e.update(hello: Hello(device: tablet, config: config))
    let moved = Frame(seq: 2, t: 50, touches: [finger(1, .moved, 120, 100)])
    #expect(e.markPalms(moved) == [1])
    #expect(e.process(moved).errors.isEmpty)
    let lifted = Frame(seq: 3, t: 100, touches: [finger(1, .ended, 120, 100)])
    #expect(e.markPalms(lifted) == [1])
    #expect(e.process(lifted).errors.isEmpty)
    #expect(e.advance(to: 1000).events.isEmpty)
    // Now a large touch is a finger, and its press a tap.
    let big = Frame(seq: 4, t: 2000, touches: [finger(2, .began, 200, 200, radius: 96)])
    #expect(e.markPalms(big) == [])
    _ = e.process(big)
    _ = e.process(Frame(seq: 5, t: 2050, touches: [finger(2, .ended, 200, 200, radius: 96)]))
    #expect(e.advance(to: 3000).events.map(\.gesture) == [.tap])
  }

  @Test func configDecodesAndRefusesBadValues() throws {
    func config(_ palm: String) -> Result<ClientMessage, ProtocolError> {
      MessageDecoder().decode(
        Array(#"{"type":"hello","device":{"name":"d","width":400,"height":800},"config":{"palm":\#(palm)}}"#.utf8))
    }
    /// The decoded member, "refused" when the hello was.
    func palm(_ text: String) -> String {
      guard case .success(.hello(let h)) = config(text) else { return "refused" }
      return h.config?.palm.map { "\($0)" } ?? "absent"
    }
    func refusal(_ text: String) -> ProtocolError? {
      guard case .failure(let e) = config(text) else { return nil }
      return e
    }
    #expect(palm("false") == "\(PalmConfig.off)")
    #expect(palm("true") == "\(PalmConfig())")
    #expect(palm("null") == "absent")
    #expect(palm(#"{"radius":60}"#) == "\(PalmConfig(radius: 60))")
    #expect(palm(#"{"whilePen":false,"radius":null}"#) == "\(PalmConfig(whilePen: false))")
    for bad in [#"{"radius":0}"#, #"{"radius":-3}"#, #"{"radius":100001}"#] {
      let e = refusal(bad)
      #expect(e?.code == .badValue, "\(bad)")
      #expect(e?.message.contains("config.palm.radius") == true, "\(bad): \(e?.message ?? "")")
    }
    for (bad, path) in [
      (#""off""#, "config.palm"), ("1", "config.palm"), (#"{"radius":"big"}"#, "config.palm.radius"),
      (#"{"whilePen":1}"#, "config.palm.whilePen"),
    ] {
      let e = refusal(bad)
      #expect(e?.code == .wrongType, "\(bad)")
      #expect(e?.message.contains("'\(path)'") == true, "\(bad): \(e?.message ?? "")")
    }
  }
}

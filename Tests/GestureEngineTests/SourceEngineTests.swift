import ConformanceSupport
import GestureEngine
import Testing
import TouchProtocol

private let phone = Device(name: "test", width: 390, height: 844)

private func frame(_ seq: Int64, _ t: Double, _ touches: [(Int64, TouchPhase, Double, Double)])
  -> Frame
{
  Frame(
    seq: seq, t: t, touches: touches.map { TouchPoint(id: $0.0, phase: $0.1, x: $0.2, y: $0.3) })
}

@Suite struct SourceEngineTests {
  @Test func sceneNamesAreTheArticlesApps() {
    #expect(SourceEngine.sceneNames == ["flatcube", "zoom", "sketch"])
  }

  @Test func nextDeadlineTracksTheDoubleTapWaitAndTheLongPress() {
    var e = SourceEngine(hello: Hello(device: phone), maxFingers: 10)
    #expect(e.nextDeadline == nil)
    _ = e.process(frame(1, 0, [(1, .began, 10, 10)]))
    #expect(e.nextDeadline == 500)
    _ = e.process(frame(2, 40, [(1, .ended, 10, 10)]))
    #expect(e.nextDeadline == 340)
    #expect(e.advance(to: 339).events.isEmpty)
    let out = e.advance(to: 340)
    #expect(out.events.map(\.gesture) == [.tap])
    #expect(out.events.first?.t == 340)
    #expect(e.nextDeadline == nil)
  }

  /// Events the caller still holds keep the fingers they had, and new ones carry their own
  /// frame's: the engine reuses storage it handed out before (`EventLog`), and once also
  /// refilled the fingers lists of events handed out.
  @Test func fingersOfEventsStayAsHandedOutAndNewOnesAreOfTheirFrame() {
    var e = SourceEngine(hello: Hello(device: phone), maxFingers: 10)
    var held: [(event: GestureEvent, fingers: [String])] = []
    var changed = 0
    func text(_ fingers: [GestureFinger]) -> [String] { fingers.map { "\($0.id) \($0.x) \($0.y)" } }
    for i in 0..<40 {
      let x = 100 + Double(i) * 5
      let phase: TouchPhase = i == 0 ? .began : (i == 39 ? .ended : .moved)
      let out = e.process(frame(Int64(i + 1), Double(i) * 16, [(1, phase, x, 200), (2, phase, x + 50, 300)]))
      for event in out.events where event.gesture == .pan && event.state == .changed {
        changed += 1
        #expect(text(event.fingers ?? []) == ["1 \(x) 200.0", "2 \(x + 50) 300.0"], "frame \(i)")
        // Every third frame's event is held to the end; the others are let go at once.
        if i % 3 == 0 { held.append((event, text(event.fingers ?? []))) }
      }
    }
    #expect(changed > 20)
    for h in held { #expect(text(h.event.fingers ?? []) == h.fingers) }
  }

  @Test func immediateModeArmsNoTimer() {
    var config = GestureConfig()
    config.tapMode = "immediate"
    var e = SourceEngine(hello: Hello(device: phone, config: config), maxFingers: 10)
    _ = e.process(frame(1, 0, [(1, .began, 10, 10)]))
    let out = e.process(frame(2, 40, [(1, .ended, 10, 10)]))
    #expect(out.events.first?.taps == 1)
    #expect(e.nextDeadline == nil)
  }

  @Test func controlWithoutSceneIsUnknownScene() {
    var e = SourceEngine(hello: Hello(device: phone), maxFingers: 10)
    #expect(e.sceneName == nil && e.sceneState == nil)
    guard case .failure(let err) = e.control(Control(action: "reset")) else {
      Issue.record("expected a failure")
      return
    }
    #expect(err.code == .unknownScene)
  }

  @Test func sceneStateSnapshotNamesItsScene() {
    for name in SourceEngine.sceneNames {
      let e = SourceEngine(hello: Hello(device: phone, scene: name), maxFingers: 10)
      #expect(e.sceneName == name)
      #expect(e.sceneState?["scene"] == .string(name))
    }
  }

  @Test func flatcubeDefaultLayoutOverlapsAsTheArticleSays() {
    let e = SourceEngine(hello: Hello(device: phone, scene: "flatcube"), maxFingers: 10)
    guard case .array(let regions)? = e.sceneState?["regions"] else {
      Issue.record("no regions in the flatcube state")
      return
    }
    func rect(_ v: JSONValue) -> Region? {
      guard case .string(let id)? = v["id"], case .number(let x)? = v["x"],
        case .number(let y)? = v["y"],
        case .number(let w)? = v["width"], case .number(let h)? = v["height"]
      else { return nil }
      return Region(id: id, x: x, y: y, width: w, height: h)
    }
    let r = regions.compactMap(rect)
    #expect(r.map(\.id) == ["red", "yellowLeft", "yellowRight"])
    // The surface centre is inside all three squares; each pair shares a point only they hold.
    #expect(r.allSatisfy { $0.contains(x: 195, y: 422) })
    #expect(
      r.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x + $0.width <= 390 && $0.y + $0.height <= 844 })
  }

  @Test func configFromARepeatedHelloWaitsForTheNextSequence() {
    var e = SourceEngine(hello: Hello(device: phone), maxFingers: 10)
    _ = e.process(frame(1, 0, [(1, .began, 10, 10)]))
    var config = GestureConfig()
    config.tapMode = "immediate"
    _ = e.update(hello: Hello(device: phone, config: config))
    // This press started under the deferred rules, so it still waits.
    #expect(e.process(frame(2, 40, [(1, .ended, 10, 10)])).events.isEmpty)
    _ = e.advance(to: 1000)
    _ = e.process(frame(3, 2000, [(2, .began, 10, 10)]))
    #expect(e.process(frame(4, 2040, [(2, .ended, 10, 10)])).events.map(\.taps) == [1])
  }

  @Test func unknownTouchIsReportedOncePerIdAndCounted() {
    var e = SourceEngine(hello: Hello(device: phone), maxFingers: 10)
    let a = e.process(frame(1, 0, [(5, .moved, 1, 1)]))
    let b = e.process(frame(2, 10, [(5, .moved, 2, 1)]))
    #expect(a.errors.map(\.code) == [.unknownTouch] && a.errors.first?.seq == 1)
    #expect(b.errors.isEmpty)
    #expect(e.unknownTouchCount == 2)
  }

  /// Engines sharing one `FrameScratch`, fed in turn as the server feeds them, give exactly
  /// what each gives on its own: nothing is carried from one engine's frame to the next.
  @Test func enginesSharingAScratchGiveWhatEachGivesAlone() {
    // Traffic that fills every list of a frame's plan: lifts, cancels, missing fingers,
    // re-began ids, unknown ids and more fingers than the limit of 3.
    func traffic(seed: UInt64) -> [Frame] {
      var rng = SeededLCG(state: seed &* 2_862_933_555_777_941_757 &+ 3_037_000_493)
      func next(_ n: Int) -> Int { rng.below(n) }
      var down: [Int64] = []
      var frames: [Frame] = []
      for seq in 1...300 {
        var touches: [TouchPoint] = []
        for id in down {
          let phases: [TouchPhase] = [.moved, .moved, .stationary, .ended, .cancelled, .began]
          if next(8) == 0 { continue }  // missing from the frame
          touches.append(
            TouchPoint(id: id, phase: phases[next(phases.count)], x: Double(next(390)), y: Double(next(844))))
        }
        if next(3) == 0 { touches.append(TouchPoint(id: Int64(next(12)), phase: .began, x: 5, y: 5)) }
        if next(9) == 0 { touches.append(TouchPoint(id: 99, phase: .moved, x: 1, y: 1)) }
        frames.append(Frame(seq: Int64(seq), t: Double(seq * 17), touches: touches))
        down = touches.filter { !$0.phase.isTerminal }.map(\.id)
      }
      return frames
    }
    let traffics = (1...3).map { traffic(seed: UInt64($0)) }
    let hello = Hello(device: phone, scene: "flatcube")
    var alone: [[EngineOutput]] = []
    for frames in traffics {
      var e = SourceEngine(hello: hello, maxFingers: 3)
      alone.append(frames.map { e.process($0) })
    }
    var engines = traffics.map { _ in SourceEngine(hello: hello, maxFingers: 3) }
    var shared: [[EngineOutput]] = traffics.map { _ in [] }
    var scratch = FrameScratch()
    for k in traffics[0].indices {
      for i in engines.indices { shared[i].append(engines[i].process(traffics[i][k], scratch: &scratch)) }
    }
    #expect(shared == alone)
    #expect(alone.joined().contains { !$0.errors.isEmpty } && alone.joined().contains { !$0.events.isEmpty })
  }

  /// Random finger traffic (a fixed-seed generator, so failures reproduce): every gesture
  /// that began gets exactly one ended or cancelled, nothing follows it, and `changed` only
  /// comes between them.
  @Test(arguments: 1...40)
  func everyBeganGetsExactlyOneEnding(seed: UInt64) {
    var rng = SeededLCG(state: seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407)
    func next(_ n: Int) -> Int { rng.below(n) }
    var e = SourceEngine(
      hello: Hello(device: phone, scene: SourceEngine.sceneNames[Int(seed) % 3]), maxFingers: 4)
    var down: [Int64: (Double, Double)] = [:]
    var nextID: Int64 = 1
    var events: [GestureEvent] = []
    var t = 0.0
    for seq in 1...400 {
      t += Double(10 + next(120))
      if next(7) == 0 { events += e.advance(to: t - 5).events }
      var touches: [TouchPoint] = []
      for (id, p) in down.sorted(by: { $0.key < $1.key }) {
        switch next(10) {
        case 0: touches.append(TouchPoint(id: id, phase: .ended, x: p.0, y: p.1))
        case 1 where next(4) == 0:
          touches.append(TouchPoint(id: id, phase: .cancelled, x: p.0, y: p.1))
        case 2 where next(4) == 0: break  // missing from the frame
        case 3...6:
          let q = (p.0 + Double(next(61) - 30), p.1 + Double(next(61) - 30))
          touches.append(TouchPoint(id: id, phase: .moved, x: q.0, y: q.1))
        default: touches.append(TouchPoint(id: id, phase: .stationary, x: p.0, y: p.1))
        }
      }
      if next(4) == 0 {
        touches.append(
          TouchPoint(id: nextID, phase: .began, x: Double(next(390)), y: Double(next(844))))
        nextID += 1
      }
      let out = e.process(Frame(seq: Int64(seq), t: t, touches: touches))
      events += out.events
      // Touches over the finger limit stay in the frames; the engine ignores them silently.
      down = [:]
      for p in touches where !p.phase.isTerminal { down[p.id] = (p.x, p.y) }
      #expect(!out.errors.contains { $0.code == .unknownTouch })
    }
    events += e.cancelAll(at: t + 1).events
    var open: Set<Int> = []
    var closed: Set<Int> = []
    for ev in events {
      #expect(!closed.contains(ev.id), "event after the end of gesture \(ev.id)")
      switch ev.state {
      case .began: open.insert(ev.id)
      case .changed: #expect(open.contains(ev.id))
      case .ended, .cancelled:
        #expect(open.remove(ev.id) != nil)
        closed.insert(ev.id)
      case .recognized: closed.insert(ev.id)
      }
    }
    #expect(open.isEmpty, "gestures left open: \(open.sorted())")
  }
}

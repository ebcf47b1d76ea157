import Foundation
import Testing
import TouchProtocol
import TouchRelayKit

/// Every `server-*.json` in protocol/examples decodes to the typed message its name says, with
/// its members where a user would look for them.
@Suite struct ServerExampleDecodingTests {
  static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../protocol/examples").standardized

  static func serverExamples() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []
    return names.filter { $0.hasPrefix("server-") && $0.hasSuffix(".json") }.sorted()
  }

  static func decode(_ name: String) throws -> ObserverMessage {
    let text = try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
    return try ObserverMessage.decode(text)
  }

  @Test func everyKindHasAnExample() {
    let names = Self.serverExamples()
    for kind in ["welcome", "source", "touches", "gesture", "scene", "dropped", "error"] {
      #expect(names.contains { $0.hasPrefix("server-\(kind)") }, "no example of \(kind)")
    }
    for gesture in GestureKind.allCases {
      #expect(names.contains("server-gesture-\(gesture.rawValue).json"), "no example of \(gesture)")
    }
  }

  @Test(arguments: serverExamples())
  func exampleDecodesToItsKind(_ name: String) throws {
    let message = try Self.decode(name)
    let kind: String
    switch message {
    case .welcome: kind = "welcome"
    case .source: kind = "source"
    case .touches: kind = "touches"
    case .gesture(let g): kind = "gesture-\(g.kind.rawValue)"
    case .scene: kind = "scene"
    case .dropped: kind = "dropped"
    case .error: kind = "error"
    case .disconnected: kind = "disconnected"
    }
    #expect(name.hasPrefix("server-\(kind)"), "\(name) decoded as \(kind)")
  }

  /// The server's own members on raw touches: which entries are palms, and where each
  /// moving touch is predicted (`?predict=MS`), by touch id.
  @Test func touchesCarryPalmsAndPredictedPositionsByTouchID() throws {
    guard case .touches(let palm) = try Self.decode("server-touches-palm.json") else {
      Issue.record("not touches")
      return
    }
    #expect(palm.palms == [5])
    #expect(palm.touches.map(\.id) == [3, 5])
    #expect(palm.predicted.isEmpty)
    guard case .touches(let ahead) = try Self.decode("server-touches-predicted.json") else {
      Issue.record("not touches")
      return
    }
    #expect(ahead.predicted == [1: PredictedPosition(x: 161.25, y: 230.5)])
    #expect(ahead.palms.isEmpty)
    // A plain frame has neither.
    guard case .touches(let plain) = try Self.decode("server-touches.json") else { return }
    #expect(plain.palms.isEmpty && plain.predicted.isEmpty)
  }

  @Test func welcomeOfAnObserverCarriesSourcesAndScenes() throws {
    guard case .welcome(let w) = try Self.decode("server-welcome-observer.json") else {
      Issue.record("not a welcome")
      return
    }
    #expect(w.role == .observer && w.session == "demo")
    #expect(w.sources.map(\.id) == ["s1", "s2"])
    #expect(w.sources[0].device == Device(name: "Pixel 8", width: 412, height: 915))
    #expect(w.scenes.first?.source == "s1" && w.scenes.first?.scene == "flatcube")
    #expect(w.limits["maxFramesPerSecond"] == 480)
    #expect(w.maxFramesPerMessage == 64)
    var session = SessionState()
    session.apply(.welcome(w))
    #expect(session.sources.count == 2 && session.scenes["s1"]?.state["counters"]?["red"] == .number(3))
  }

  @Test func welcomeOfAResumedSource() throws {
    guard case .welcome(let w) = try Self.decode("server-welcome-source-resumed.json") else {
      Issue.record("not a welcome")
      return
    }
    #expect(w.role == .source && w.source == "s3" && w.resumed)
  }

  @Test func gesturePayloadsAreTyped() throws {
    func payload(_ name: String) throws -> GestureMessage? {
      if case .gesture(let g) = try Self.decode(name) { return g }
      return nil
    }
    let tap = try #require(try payload("server-gesture-tap.json"))
    #expect(tap.payload == .tap(taps: 2) && tap.state == .recognized && tap.origin.seq == 9)
    #expect(tap.fingers == [GestureFinger(id: 1, x: 121, y: 211, regions: ["red"])])
    #expect(
      try payload("server-gesture-pan.json")?.payload
        == .pan(translation: Vector(x: 40.5, y: -12), velocity: Vector(x: 812.25, y: -240)))
    #expect(try payload("server-gesture-pinch.json")?.payload == .pinch(scale: 1.25, velocity: 0.8))
    #expect(try payload("server-gesture-rotation.json")?.payload == .rotation(rotation: 0.52, velocity: -1.5))
    #expect(
      try payload("server-gesture-swipe.json")?.payload
        == .swipe(direction: .right, translation: nil, velocity: Vector(x: 1450, y: 35)))
    #expect(
      try payload("server-gesture-shape.json")?.payload
        == .shape(name: "triangle", score: 0.91, bounds: ShapeBounds(x: 100, y: 200, width: 100, height: 87)))
    let press = try #require(try payload("server-gesture-longpress.json"))
    #expect(press.payload == .longpress && press.state == .began && press.regions == ["yellowLeft", "yellowRight"])
  }

  @Test func touchesSourceSceneDroppedError() throws {
    guard case .touches(let t) = try Self.decode("server-touches-two-fingers.json") else {
      Issue.record("not touches")
      return
    }
    #expect(t.source == "s1" && t.origin.seq == 8 && t.origin.rt == 697126.75)
    #expect(t.touches[0] == TouchPoint(id: 1, phase: .moved, x: 124, y: 214.25, force: 0.5, radiusX: 11.5))
    guard case .source(let s) = try Self.decode("server-source.json") else {
      Issue.record("not source")
      return
    }
    #expect(s.event == .joined && s.source == "s1" && s.info.scene == "flatcube")
    guard case .scene(let first) = try Self.decode("server-scene-snapshot.json"),
      case .scene(let later) = try Self.decode("server-scene.json")
    else {
      Issue.record("not scenes")
      return
    }
    #expect(first.origin == nil && first.scene == "flatcube")
    #expect(later.origin?.seq == 9)
    #expect(try Self.decode("server-dropped.json") == .dropped(count: 17))
    #expect(
      try Self.decode("server-error.json")
        == .error(RelayError(code: "seq_not_increasing", message: "seq 7 is not greater than 9", seq: 7)))
  }

  @Test func unreadableMessagesAreRefusedWithAReason() {
    #expect(throws: MessageDecodingError.self) { try ObserverMessage.decode("{") }
    #expect(throws: MessageDecodingError.self) { try ObserverMessage.decode(#"{"type":"nope"}"#) }
    #expect(throws: MessageDecodingError.self) {
      try ObserverMessage.decode(#"{"type":"gesture","gesture":"tap","state":"recognized"}"#)
    }
  }

  @Test func sessionStateKeepsTheNewestScene() {
    var session = SessionState()
    let origin = { (seq: Int64) in Origin(source: "s1", seq: seq, t: 0, rt: 0) }
    session.apply(.scene(SceneMessage(source: "s1", origin: origin(9), state: .number(9))))
    session.apply(.scene(SceneMessage(source: "s1", origin: origin(7), state: .number(7))))
    #expect(session.scenes["s1"]?.state == .number(9))
    session.apply(.scene(SceneMessage(source: "s1", origin: origin(10), state: .number(10))))
    #expect(session.scenes["s1"]?.state == .number(10))
  }
}

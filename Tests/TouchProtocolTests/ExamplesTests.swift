import Foundation
import Testing

@testable import TouchProtocol

/// Keeps protocol/examples and protocol/schemas honest against the code:
/// - every `client-*.json` example is accepted by `MessageDecoder`;
/// - every `invalid/<code>[-what].json` is refused with exactly `<code>`;
/// - every `server-*.json` example is what `ServerMessage` writes for the same values
///   (same members at every level, same values except the times `t`, `rt`, `serverTime`);
/// - the enums in the schemas list exactly the Swift enums' raw values.
/// tools/check-protocol.py checks the same files against the JSON Schemas.
@Suite struct ExamplesTests {
  // MARK: - Client examples

  @Test(arguments: ExampleFiles.names(in: ExampleFiles.examples, prefix: "client-"))
  func clientExampleDecodes(_ name: String) throws {
    let bytes = try ExampleFiles.bytes(ExampleFiles.examples.appendingPathComponent(name))
    let result = MessageDecoder().decode(bytes)
    guard case .success(let message) = result else {
      Issue.record("\(name) was refused: \(result)")
      return
    }
    let kind: String
    switch message {
    case .hello: kind = "hello"
    case .frame: kind = "frame"
    case .frames: kind = "frames"
    case .control: kind = "control"
    }
    #expect(name.hasPrefix("client-\(kind)"), "\(name) decoded as \(kind)")
  }

  @Test(arguments: ExampleFiles.names(in: ExampleFiles.invalid, prefix: ""))
  func invalidExampleIsRefusedWithItsCode(_ name: String) throws {
    let code = String(name.dropLast(".json".count).prefix { $0 != "-" })
    #expect(ErrorCode(rawValue: code) != nil, "\(name) does not start with an ErrorCode raw value")
    let bytes = try ExampleFiles.bytes(ExampleFiles.invalid.appendingPathComponent(name))
    switch MessageDecoder().decode(bytes) {
    case .success(let message):
      Issue.record("\(name) was accepted as \(message)")
    case .failure(let error):
      #expect(error.code.rawValue == code, "\(name): \(error.message)")
    }
  }

  @Test func examplesArePresent() {
    #expect(ExampleFiles.names(in: ExampleFiles.examples, prefix: "client-").count >= 3)
    #expect(ExampleFiles.names(in: ExampleFiles.invalid, prefix: "").count >= 5)
    #expect(ExampleFiles.names(in: ExampleFiles.examples, prefix: "server-").count >= 9)
  }

  // MARK: - Server examples

  /// Every server example has a builder, and every builder an example.
  @Test func everyServerExampleHasABuilder() {
    let files = Set(ExampleFiles.names(in: ExampleFiles.examples, prefix: "server-"))
    let built = Set(ServerExamples.builders.keys)
    #expect(files.subtracting(built).sorted() == [], "examples without a builder")
    #expect(built.subtracting(files).sorted() == [], "builders without an example")
  }

  @Test(arguments: ExampleFiles.names(in: ExampleFiles.examples, prefix: "server-"))
  func serverExampleMatchesEncoder(_ name: String) throws {
    guard let build = ServerExamples.builders[name] else {
      Issue.record("no builder for \(name)")
      return
    }
    let expected = try JSONSerialization.jsonObject(
      with: Data(ExampleFiles.bytes(ExampleFiles.examples.appendingPathComponent(name))))
    let encoded = build()
    let actual = try JSONSerialization.jsonObject(with: Data(encoded))
    var differences: [String] = []
    JSONCompare.diff(expected, actual, path: "", into: &differences)
    #expect(differences == [], "\(name) vs \(String(decoding: encoded, as: UTF8.self))")
  }

  /// `headroom` only reserves bytes in front of the JSON.
  @Test func headroomPrefixesZeroBytes() {
    let plain = ServerMessage.dropped(count: 17)
    let padded = ServerMessage.dropped(count: 17, headroom: 16)
    #expect(padded.prefix(16).allSatisfy { $0 == 0 })
    #expect(Array(padded.dropFirst(16)) == plain)
  }

  // MARK: - Schemas against the Swift enums

  @Test func errorCodesMatchSchema() throws {
    let schema = try ExampleFiles.schema("server-error")
    let codes = try #require(JSONPath.strings(schema, "properties", "code", "enum"))
    #expect(Set(codes) == Set(ErrorCode.allCases.map(\.rawValue)))
    #expect(codes.count == ErrorCode.allCases.count)
  }

  @Test func gestureEnumsMatchSchema() throws {
    let schema = try ExampleFiles.schema("server-gesture")
    #expect(
      JSONPath.strings(schema, "properties", "gesture", "enum").map(Set.init)
        == Set(GestureKind.allCases.map(\.rawValue)))
    #expect(
      JSONPath.strings(schema, "properties", "state", "enum").map(Set.init)
        == Set(GestureState.allCases.map(\.rawValue)))
    #expect(
      JSONPath.strings(schema, "properties", "direction", "enum").map(Set.init)
        == Set(SwipeDirection.allCases.map(\.rawValue)))
  }

  @Test func presetsMatchSchema() throws {
    let hello = try ExampleFiles.schema("client-hello")
    #expect(
      JSONPath.strings(hello, "properties", "config", "properties", "preset", "enum").map(Set.init)
        == Set(GesturePreset.allCases.map(\.rawValue)))
  }

  @Test func touchPhasesAndLimitsMatchSchemas() throws {
    let frame = try ExampleFiles.schema("client-frame")
    #expect(
      JSONPath.strings(frame, "$defs", "touch", "properties", "phase", "enum").map(Set.init)
        == Set(TouchPhase.allCases.map(\.rawValue)))
    #expect(
      JSONPath.number(frame, "properties", "touches", "maxItems") == Double(Limits().maxTouchesPerFrame))
    let touches = try ExampleFiles.schema("server-touches")
    #expect(
      JSONPath.strings(touches, "properties", "touches", "items", "properties", "phase", "enum").map(Set.init)
        == Set(TouchPhase.allCases.map(\.rawValue)))
    let hello = try ExampleFiles.schema("client-hello")
    #expect(JSONPath.number(hello, "properties", "regions", "maxItems") == Double(HelloValidator.maxRegions))
    #expect(
      JSONPath.number(hello, "properties", "device", "properties", "name", "maxLength")
        == Double(HelloValidator.maxNameLength))
  }

  /// The session pattern of the welcome schema accepts what `SessionName` accepts.
  @Test func sessionPatternMatchesSessionName() throws {
    let schema = try ExampleFiles.schema("server-welcome")
    let pattern = try #require(JSONPath.string(schema, "$defs", "session", "pattern"))
    let regex = try NSRegularExpression(pattern: pattern)
    let names = [
      "demo", "a", "A-b_9", String(repeating: "x", count: 64), String(repeating: "x", count: 65), "",
      "no space", "dot.name", "ümlaut", "slash/", "tab\t",
    ]
    for name in names {
      let range = NSRange(name.startIndex..<name.endIndex, in: name)
      let matches = regex.firstMatch(in: name, range: range) != nil
      #expect(matches == SessionName.isValid(name), "session name \(name.debugDescription)")
    }
  }
}

// MARK: - Files

private enum ExampleFiles {
  /// The repository root, three levels above this file (Tests/TouchProtocolTests/ExamplesTests.swift).
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let examples = root.appendingPathComponent("protocol/examples")
  static let invalid = examples.appendingPathComponent("invalid")
  static let schemas = root.appendingPathComponent("protocol/schemas")

  /// The `.json` files directly in `dir` whose names start with `prefix`, sorted.
  static func names(in dir: URL, prefix: String) -> [String] {
    let all = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return all.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }.sorted()
  }

  static func bytes(_ url: URL) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: url))
  }

  static func schema(_ name: String) throws -> Any {
    try JSONSerialization.jsonObject(
      with: Data(contentsOf: schemas.appendingPathComponent("\(name).schema.json")))
  }
}

private enum JSONPath {
  static func value(_ root: Any, _ path: [String]) -> Any? {
    var node: Any? = root
    for key in path { node = (node as? [String: Any])?[key] }
    return node
  }

  static func strings(_ root: Any, _ path: String...) -> [String]? {
    (value(root, path) as? [Any])?.compactMap { $0 as? String }
  }

  static func string(_ root: Any, _ path: String...) -> String? {
    value(root, path) as? String
  }

  static func number(_ root: Any, _ path: String...) -> Double? {
    (value(root, path) as? NSNumber)?.doubleValue
  }
}

/// Compares two Foundation JSON trees: the same members at every level, arrays of the same
/// length, equal leaves, except that times (`t`, `rt`, `serverTime`) need only both be numbers.
private enum JSONCompare {
  static let timeKeys: Set<String> = ["t", "rt", "serverTime"]

  static func diff(_ expected: Any, _ actual: Any, path: String, into out: inout [String]) {
    switch (expected, actual) {
    case (let e as [String: Any], let a as [String: Any]):
      let ek = Set(e.keys)
      let ak = Set(a.keys)
      for k in ek.subtracting(ak).sorted() { out.append("\(path)/\(k): only in the example") }
      for k in ak.subtracting(ek).sorted() { out.append("\(path)/\(k): only in the encoder's output") }
      for k in ek.intersection(ak).sorted() {
        if timeKeys.contains(k) {
          if !(e[k] is NSNumber && a[k] is NSNumber) { out.append("\(path)/\(k): a time must be a number") }
        } else {
          diff(e[k]!, a[k]!, path: "\(path)/\(k)", into: &out)
        }
      }
    case (let e as [Any], let a as [Any]):
      guard e.count == a.count else {
        out.append("\(path): \(e.count) elements in the example, \(a.count) in the encoder's output")
        return
      }
      for (i, (x, y)) in zip(e, a).enumerated() { diff(x, y, path: "\(path)/\(i)", into: &out) }
    case (let e as String, let a as String):
      if e != a { out.append("\(path): \(e.debugDescription) != \(a.debugDescription)") }
    case (is NSNull, is NSNull):
      break
    case (let e as NSNumber, let a as NSNumber):
      if e.doubleValue != a.doubleValue { out.append("\(path): \(e) != \(a)") }
    default:
      out.append("\(path): \(type(of: expected)) in the example, \(type(of: actual)) in the encoder's output")
    }
  }
}

// MARK: - The server examples, built with the encoders

private enum ServerExamples {
  static let flatcubeRegions: JSONValue = .array([
    region("red", 126, 293, 160, 160), region("yellowLeft", 86, 413, 160, 160),
    region("yellowRight", 166, 413, 160, 160),
  ])

  static func region(_ id: String, _ x: Double, _ y: Double, _ w: Double, _ h: Double) -> JSONValue {
    .object([("id", .string(id)), ("x", .number(x)), ("y", .number(y)), ("width", .number(w)), ("height", .number(h))])
  }

  static func flatcube(red: Double, yellow: Double) -> JSONValue {
    .object([
      ("scene", .string("flatcube")),
      ("counters", .object([("red", .number(red)), ("yellow", .number(yellow))])),
      ("recognizeAny", .bool(false)),
      ("regions", flatcubeRegions),
    ])
  }

  static func point(_ x: Double, _ y: Double) -> JSONValue { .array([.number(x), .number(y)]) }

  static let pixel = Device(name: "Pixel 8", width: 412, height: 915)

  static let builders: [String: @Sendable () -> [UInt8]] = [
    "server-welcome-source.json": {
      ServerMessage.sourceWelcome(
        session: "demo", source: "s1", resumed: false, limits: Limits(), serverTime: 697108.71)
    },
    "server-welcome-source-resumed.json": {
      ServerMessage.sourceWelcome(
        session: "demo", source: "s3", resumed: true, limits: Limits(), serverTime: 702115.4)
    },
    "server-welcome-observer.json": {
      ServerMessage.observerWelcome(
        session: "demo",
        sources: [
          SourceInfo(id: "s1", device: pixel, scene: "flatcube"),
          SourceInfo(id: "s2", device: Device(name: "Web", width: 1280, height: 720)),
        ],
        scenes: [(source: "s1", state: flatcube(red: 3, yellow: 1))], limits: Limits(), serverTime: 697106.52)
    },
    "server-welcome-observer-cluster.json": {
      // Node B: a source of its own, and one of node A's with A's scene state as A encoded it.
      ServerMessage.observerWelcome(
        session: "demo", sources: [SourceInfo(id: "B.s3", device: pixel)], scenes: [], limits: Limits(),
        serverTime: 1_795_718_414_698.37,
        cluster: ServerMessage.ClusterWelcome(
          node: "B", busUp: true,
          sources: [SourceInfo(id: "A.s1", device: Device(name: "iPad", width: 820, height: 1180), scene: "flatcube")],
          scenes: [(source: "A.s1", state: ServerMessage.sceneState(flatcube(red: 3, yellow: 1)))]))
    },
    "server-error.json": {
      ServerMessage.error(ProtocolError(.seqNotIncreasing, "seq 7 is not greater than 9", seq: 7))
    },
    "server-error-not-allowed.json": {
      ServerMessage.error(ProtocolError(.notAllowed, "observers may only send 'control'"))
    },
    "server-source.json": {
      ServerMessage.sourceEvent("joined", SourceInfo(id: "s1", device: pixel, scene: "flatcube"))
    },
    "server-source-updated.json": {
      ServerMessage.sourceEvent("updated", SourceInfo(id: "s2", device: Device(name: "Web", width: 720, height: 1280)))
    },
    "server-touches.json": {
      ServerMessage.touches(
        Frame(seq: 7, t: 18234.5, touches: [TouchPoint(id: 1, phase: .began, x: 120.5, y: 210)]),
        origin: Origin(source: "s1", seq: 7, t: 18234.5, rt: 697110.03))
    },
    "server-touches-palm.json": {
      var w = JSONWriter()
      ServerMessage.write(
        Frame(
          seq: 12, t: 18402.5,
          touches: [
            TouchPoint(
              id: 3, phase: .moved, x: 140.25, y: 96.5, details: ContactDetails(kind: .pen, pressure: 0.42)),
            TouchPoint(id: 5, phase: .began, x: 210, y: 160, details: ContactDetails(radius: 96)),
          ]),
        origin: Origin(source: "s1", seq: 12, t: 18402.5, rt: 697110.03), palms: [5], &w)
      return w.bytes
    },
    "server-touches-two-fingers.json": {
      ServerMessage.touches(
        Frame(
          seq: 8, t: 18251.2,
          touches: [
            TouchPoint(id: 1, phase: .moved, x: 124, y: 214.25, force: 0.5, radiusX: 11.5, radiusY: nil),
            TouchPoint(id: 2, phase: .began, x: 260, y: 380),
          ]),
        origin: Origin(source: "s1", seq: 8, t: 18251.2, rt: 697126.75))
    },
    "server-touches-predicted.json": {
      // An observer with `?predict=33`: the message others get, `predicted` spliced in.
      let plain = ServerMessage.touches(
        Frame(seq: 8, t: 18242.5, touches: [TouchPoint(id: 1, phase: .moved, x: 128.5, y: 214)]),
        origin: Origin(source: "s1", seq: 8, t: 18242.5, rt: 697118.1))
      var w = JSONWriter()
      plain.withUnsafeBytes { bytes in
        let entries = TouchesMessageEntries(bytes)!.entries
        ServerMessage.writePredicted(bytes, [ServerMessage.Prediction(end: entries[0].end, x: 161.25, y: 230.5)], &w)
      }
      return w.bytes
    },
    "server-gesture-tap.json": {
      ServerMessage.gesture(
        GestureEvent(
          id: 4, gesture: .tap, state: .recognized, t: 18301, x: 121, y: 211, touches: 1, regions: ["red"],
          taps: 2, fingers: [GestureFinger(id: 1, x: 121, y: 211, regions: ["red"])]),
        origin: Origin(source: "s1", seq: 9, t: 18301, rt: 697110.2))
    },
    "server-gesture-longpress.json": {
      let regions = ["yellowLeft", "yellowRight"]
      return ServerMessage.gesture(
        GestureEvent(
          id: 5, gesture: .longpress, state: .began, t: 19100, x: 200, y: 500, touches: 1, regions: regions,
          fingers: [GestureFinger(id: 3, x: 200, y: 500, regions: regions)]),
        origin: Origin(source: "s1", seq: 40, t: 19100, rt: 697905.4))
    },
    "server-gesture-pan.json": {
      ServerMessage.gesture(
        GestureEvent(
          id: 6, gesture: .pan, state: .changed, t: 19380.5, x: 240.5, y: 330, touches: 1, regions: ["red"],
          translation: Vector(x: 40.5, y: -12), velocity: Vector(x: 812.25, y: -240)),
        origin: Origin(source: "s1", seq: 57, t: 19380.5, rt: 698186.1))
    },
    "server-gesture-pinch.json": {
      ServerMessage.gesture(
        GestureEvent(
          id: 7, gesture: .pinch, state: .changed, t: 20012, x: 206, y: 457.5, touches: 2,
          regions: ["red", "yellowLeft", "yellowRight"], scale: 1.25, rate: 0.8,
          fingers: [
            GestureFinger(id: 5, x: 150, y: 400, regions: ["red", "yellowLeft"]),
            GestureFinger(id: 6, x: 262, y: 515, regions: ["yellowRight"]),
          ]),
        origin: Origin(source: "s1", seq: 88, t: 20012, rt: 698817.9))
    },
    "server-gesture-rotation.json": {
      ServerMessage.gesture(
        GestureEvent(
          id: 8, gesture: .rotation, state: .ended, t: 20540, x: 206, y: 457.5, touches: 2,
          regions: ["red", "yellowLeft", "yellowRight"], rotation: 0.52, rate: -1.5),
        origin: Origin(source: "s1", seq: 120, t: 20540, rt: 699345.6))
    },
    "server-gesture-swipe.json": {
      ServerMessage.gesture(
        GestureEvent(
          id: 9, gesture: .swipe, state: .recognized, t: 20702, x: 330, y: 600, touches: 1, regions: [],
          velocity: Vector(x: 1450, y: 35), direction: .right,
          fingers: [GestureFinger(id: 7, x: 330, y: 600, regions: [])]),
        origin: Origin(source: "s1", seq: 131, t: 20702, rt: 699507.2))
    },
    "server-gesture-shape.json": {
      ServerMessage.shape(
        ShapeEvent(id: 7, t: 21850, name: "triangle", score: 0.91, left: 100, top: 200, width: 100, height: 87),
        origin: Origin(source: "s1", seq: 42, t: 21850, rt: 700412.6))
    },
    "server-scene.json": {
      ServerMessage.scene(
        source: "s1", state: flatcube(red: 3, yellow: 1), origin: Origin(source: "s1", seq: 9, t: 18301, rt: 697110.2))
    },
    "server-scene-snapshot.json": {
      ServerMessage.scene(source: "s1", state: flatcube(red: 0, yellow: 0), origin: nil)
    },
    "server-scene-zoom.json": {
      ServerMessage.scene(
        source: "s2",
        state: .object([
          ("scene", .string("zoom")), ("scale", .number(2.5)),
          ("centre", .object([("x", .number(180.25)), ("y", .number(402))])),
        ]),
        origin: Origin(source: "s2", seq: 311, t: 52040.5, rt: 731120.8))
    },
    "server-scene-sketch.json": {
      ServerMessage.scene(
        source: "s3",
        state: .object([
          ("scene", .string("sketch")),
          ("lines", .array([.object([("points", .array([point(10, 20), point(14.5, 26), point(20, 33)]))])])),
          ("selected", .number(0)),
          (
            "drawing",
            .array([.object([("touch", .number(4)), ("points", .array([point(200, 300), point(204, 310)]))])])
          ),
        ]),
        origin: Origin(source: "s3", seq: 77, t: 9120, rt: 705001.3))
    },
    "server-scene-sketch-pressure.json": {
      ServerMessage.scene(
        source: "s3",
        state: .object([
          ("scene", .string("sketch")),
          (
            "lines",
            .array([
              .object([("points", .array([point(10, 20), point(14.5, 26), point(20, 33)]))]),
              .object([
                ("points", .array([point(40, 50), point(48, 52), point(57, 55)])),
                ("widths", .array([.number(2.2), .number(4), .number(5.8)])),
              ]),
            ])
          ),
          ("selected", .null),
          (
            "drawing",
            .array([
              .object([
                ("touch", .number(-2)), ("points", .array([point(200, 300), point(204, 310)])),
                ("widths", .array([.number(3.4), .number(4.6)])),
              ])
            ])
          ),
        ]),
        origin: Origin(source: "s3", seq: 91, t: 9480, rt: 705361.8))
    },
    "server-dropped.json": { ServerMessage.dropped(count: 17) },
  ]
}

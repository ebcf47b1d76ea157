import Foundation
import GestureEngine
import TouchProtocol

/// Loads and replays conformance vectors (protocol/vectors/README.md describes the format).
/// Inputs are decoded with the protocol's own MessageDecoder and outputs are encoded with
/// ServerMessage, so a vector checks the wire form a client sees. Kept free of the test
/// framework so another runner (through the live server) can reuse it.
struct ConformanceVector: Sendable, CustomStringConvertible {
  let file: String
  let json: JSON

  var name: String {
    if case .string(let s)? = json["name"] { return s }
    return file
  }
  var description: String { file }
  var tolerance: Double { json["tolerance"]?.number ?? 1e-6 }
  var steps: [JSON] { json["steps"]?.array ?? [] }

  static var directory: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("protocol/vectors")
  }

  static func loadAll() -> [ConformanceVector] {
    let dir = directory
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted().map { name in
      let data = (try? Data(contentsOf: dir.appendingPathComponent(name))) ?? Data()
      let json = (try? JSON.parse(Array(data))) ?? .null
      return ConformanceVector(file: name, json: json)
    }
  }
}

/// What a vector produced, in wire form.
struct VectorOutcome: Sendable {
  var events: [JSON] = []
  var errors: [JSON] = []
  var scenes: [JSON] = []
  var finalScene: JSON = .null
}

struct VectorRunnerError: Error, CustomStringConvertible {
  let description: String
  init(_ d: String) { description = d }
}

enum VectorRunner {
  /// Decodes one client message given as a JSON object without its `type`.
  static func decode(_ type: String, _ body: JSON?) throws -> ClientMessage {
    guard case .object(var obj)? = body else {
      throw VectorRunnerError("\(type) must be an object")
    }
    obj["type"] = .string(type)
    switch MessageDecoder().decode(JSON.object(obj).bytes) {
    case .success(let m): return m
    case .failure(let e):
      throw VectorRunnerError("\(type) does not decode: \(e.code.rawValue) \(e.message)")
    }
  }

  static func run(_ v: ConformanceVector) throws -> VectorOutcome {
    guard case .hello(let hello) = try decode("hello", v.json["hello"]) else {
      throw VectorRunnerError("hello")
    }
    let maxFingers = v.json["maxFingers"]?.number.map { Int($0) } ?? Limits().maxFingers
    var engine = SourceEngine(hello: hello, maxFingers: maxFingers)
    var outcome = VectorOutcome()
    func collect(_ out: EngineOutput) throws {
      outcome.events += try out.events.map(wire)
      outcome.errors += out.errors.map(wire)
      if let s = out.scene { outcome.scenes.append(try wire(s)) }
    }
    for step in v.steps {
      if let f = step["frame"] {
        guard case .frame(let frame) = try decode("frame", f) else {
          throw VectorRunnerError("frame")
        }
        try collect(engine.process(frame))
      } else if let t = step["advance"]?.number {
        try collect(engine.advance(to: t))
      } else if let t = step["close"]?.number {
        try collect(engine.cancelAll(at: t))
      } else if let c = step["control"] {
        guard case .control(let control) = try decode("control", c) else {
          throw VectorRunnerError("control")
        }
        switch engine.control(control) {
        case .success(let out): try collect(out)
        case .failure(let e): outcome.errors.append(wire(e))
        }
      } else if let h = step["hello"] {
        guard case .hello(let next) = try decode("hello", h) else {
          throw VectorRunnerError("hello")
        }
        try collect(engine.update(hello: next))
      } else {
        throw VectorRunnerError("unknown step \(step)")
      }
    }
    if let s = engine.sceneState { outcome.finalScene = try wire(s) }
    return outcome
  }

  /// A gesture event as its `gesture` message carries it (origin fields dropped, `t` kept).
  static func wire(_ e: GestureEvent) throws -> JSON {
    let bytes = ServerMessage.gesture(e, origin: Origin(source: "vector", seq: 0, t: e.t, rt: 0))
    guard case .object(var obj) = try JSON.parse(bytes) else {
      throw VectorRunnerError("gesture encoding")
    }
    for key in ["type", "source", "seq", "rt"] { obj[key] = nil }
    return .object(obj)
  }

  static func wire(_ e: ProtocolError) -> JSON {
    var obj: [String: JSON] = ["code": .string(e.code.rawValue), "message": .string(e.message)]
    if let seq = e.seq { obj["seq"] = .number(Double(seq)) }
    return .object(obj)
  }

  static func wire(_ state: JSONValue) throws -> JSON {
    try JSON.parse(ServerMessage.scene(source: "vector", state: state, origin: nil))["state"]
      ?? .null
  }

  /// Compares a vector's expectations with what it produced; returns the mismatches.
  static func check(_ v: ConformanceVector, _ o: VectorOutcome) -> [String] {
    var problems: [String] = []
    let tol = v.tolerance
    let expect = v.json["expect"] ?? .object([:])
    if let events = expect["events"]?.array {
      problems += Match.list(events, o.events, tol, path: "events")
    } else {
      problems.append("expect.events is missing")
    }
    // Errors are always checked: a vector expecting none leaves them out.
    problems += Match.list(expect["errors"]?.array ?? [], o.errors, tol, path: "errors")
    if let scenes = expect["scenes"]?.array {
      problems += Match.list(scenes, o.scenes, tol, path: "scenes")
    }
    if let scene = expect["scene"] {
      problems += Match.value(scene, o.finalScene, tol, path: "scene")
    }
    return problems
  }
}

/// Partial, tolerant JSON matching: an expected object lists only the keys it checks (a
/// `null` there means the key must be absent or null); arrays match element by element and
/// must have the same length; numbers match within the tolerance.
enum Match {
  static func list(_ expected: [JSON], _ actual: [JSON], _ tol: Double, path: String) -> [String] {
    var problems: [String] = []
    if expected.count != actual.count {
      problems.append(
        "\(path): expected \(expected.count) items, got \(actual.count): \(JSON.array(actual))")
    }
    for (i, (e, a)) in zip(expected, actual).enumerated() {
      problems += value(e, a, tol, path: "\(path)[\(i)]")
    }
    return problems
  }

  static func value(_ e: JSON, _ a: JSON, _ tol: Double, path: String) -> [String] {
    switch (e, a) {
    case (.object(let eo), .object(let ao)):
      return eo.keys.sorted().flatMap { key in
        value(eo[key]!, ao[key] ?? .null, tol, path: "\(path).\(key)")
      }
    case (.array(let ea), .array(let aa)):
      return list(ea, aa, tol, path: path)
    case (.number(let en), .number(let an)):
      return abs(en - an) <= tol ? [] : ["\(path): expected \(en), got \(an)"]
    default:
      return e == a ? [] : ["\(path): expected \(e), got \(a)"]
    }
  }
}

import GestureEngine
import TouchProtocol

/// What a vector produced, in wire form.
public struct VectorOutcome: Sendable {
  public var events: [JSON] = []
  public var errors: [JSON] = []
  public var scenes: [JSON] = []
  public var finalScene: JSON = .null
  /// Indexes in `events` of the events a `close` step produced (their `t` is the close's).
  public var closeEvents: Set<Int> = []
  /// With the vector's `predict`: per `touches` message, its entries' predicted positions
  /// (`VectorRunner.predictedEntries`).
  public var predicted: [JSON] = []

  public init() {}
}

/// Replays a vector's steps through `SourceEngine`, one step at a time, collecting what the
/// engine produces in wire form. The engine stays readable between steps (a runner through
/// the server uses a copy to see which timers are pending).
public struct EngineReplay: Sendable {
  public private(set) var engine: SourceEngine
  public private(set) var outcome = VectorOutcome()
  /// `predict=MS`, if the vector's observer asks for it, and the predictor its frames feed.
  private let predict: Int?
  private var predictor = PositionPredictor()

  public init(hello: Hello, maxFingers: Int, predict: Int? = nil) {
    engine = SourceEngine(hello: hello, maxFingers: maxFingers)
    self.predict = predict
  }

  public mutating func apply(_ step: VectorStep) throws {
    switch step.kind {
    case .frame(let frame):
      try predict(frame)
      try collect(engine.process(frame))
    case .frames(let frames):
      for frame in frames {
        try predict(frame)
        try collect(engine.process(frame))
      }
    case .advance(let t):
      try collect(engine.advance(to: t))
    case .close(let t):
      let first = outcome.events.count
      try collect(engine.cancelAll(at: t))
      outcome.closeEvents.formUnion(first..<outcome.events.count)
    case .control(let control):
      switch engine.control(control) {
      case .success(let out): try collect(out)
      case .failure(let e): outcome.errors.append(VectorRunner.wire(e))
      }
    case .hello(let next):
      try collect(engine.update(hello: next))
    }
  }

  /// The outcome with the scene state at the end.
  public func finish() throws -> VectorOutcome {
    var o = outcome
    if let s = engine.sceneState { o.finalScene = try VectorRunner.wire(s) }
    return o
  }

  /// The frame's `touches` message as a `predict=MS` observer gets it, written as the relay
  /// writes it (the plain message, its entries read back, `predicted` spliced in).
  private mutating func predict(_ frame: Frame) throws {
    guard let predict else { return }
    let plain = ServerMessage.touches(frame, origin: Origin(source: "vector", seq: frame.seq, t: frame.t, rt: 0))
    var w = JSONWriter()
    try plain.withUnsafeBytes { bytes in
      guard let entries = TouchesMessageEntries(bytes)?.entries else {
        throw VectorRunnerError("the server's own touches message does not read back")
      }
      predictor.take(t: frame.t, entries)
      let predictions = entries.compactMap { e in
        predictor.predicted(e.id, after: Double(predict)).map { ServerMessage.Prediction(end: e.end, x: $0.x, y: $0.y) }
      }
      ServerMessage.writePredicted(bytes, predictions, &w)
    }
    outcome.predicted.append(try VectorRunner.predictedEntries(JSON.parse(w.bytes)))
  }

  private mutating func collect(_ out: EngineOutput) throws {
    outcome.events += try out.events.map(VectorRunner.wire)
    // After the call's other gestures, as the relay core sends them.
    outcome.events += try out.shapes.map(VectorRunner.wire)
    outcome.errors += out.errors.map(VectorRunner.wire)
    if let s = out.scene { outcome.scenes.append(try VectorRunner.wire(s)) }
  }
}

/// Replays conformance vectors through `SourceEngine` directly. Inputs are decoded with the
/// protocol's own MessageDecoder and outputs are encoded with ServerMessage, so a vector
/// checks the wire form a client sees.
public enum VectorRunner {
  public static func run(_ v: ConformanceVector) throws -> VectorOutcome {
    var replay = EngineReplay(hello: try v.hello().hello, maxFingers: v.maxFingers, predict: v.predict)
    for step in try v.parsedSteps() { try replay.apply(step) }
    return try replay.finish()
  }

  /// The entries of a `touches` message that carry `predicted`, as `expect.predicted` lists
  /// them: `{"id", "x", "y"}`.
  public static func predictedEntries(_ message: JSON) throws -> JSON {
    guard let touches = message["touches"]?.array else {
      throw VectorRunnerError("a touches message without touches: \(message)")
    }
    return .array(
      touches.compactMap { entry in
        guard let p = entry["predicted"] else { return nil }
        return .object(["id": entry["id"] ?? .null, "x": p["x"] ?? .null, "y": p["y"] ?? .null])
      })
  }

  /// A gesture event as its `gesture` message carries it (origin fields dropped, `t` kept).
  public static func wire(_ e: GestureEvent) throws -> JSON {
    let bytes = ServerMessage.gesture(e, origin: Origin(source: "vector", seq: 0, t: e.t, rt: 0))
    return try gestureFields(JSON.parse(bytes))
  }

  /// The members of a `gesture` message that describe the event: without `type` and the
  /// origin stamps (`source`, `seq`, `rt`), which depend on who sent it and when.
  public static func gestureFields(_ message: JSON) throws -> JSON {
    guard case .object(var obj) = message else {
      throw VectorRunnerError("a gesture message is not an object: \(message)")
    }
    for key in ["type", "source", "seq", "rt"] { obj[key] = nil }
    return .object(obj)
  }

  /// A shape as its `gesture` message carries it (see `wire(_: GestureEvent)`).
  public static func wire(_ s: ShapeEvent) throws -> JSON {
    try gestureFields(JSON.parse(ServerMessage.shape(s, origin: Origin(source: "vector", seq: 0, t: s.t, rt: 0))))
  }

  public static func wire(_ e: ProtocolError) -> JSON {
    var obj: [String: JSON] = ["code": .string(e.code.rawValue), "message": .string(e.message)]
    if let seq = e.seq { obj["seq"] = .number(Double(seq)) }
    return .object(obj)
  }

  public static func wire(_ state: JSONValue) throws -> JSON {
    try JSON.parse(ServerMessage.scene(source: "vector", state: state, origin: nil))["state"]
      ?? .null
  }

  /// Compares a vector's expectations with what it produced; returns the mismatches.
  /// `closeTimeTolerance` loosens the `t` of the events a close produced (`closeEvents`).
  public static func check(
    _ v: ConformanceVector, _ o: VectorOutcome, closeTimeTolerance: Double? = nil
  ) -> [String] {
    var problems: [String] = []
    let tol = v.tolerance
    let expect = v.expect
    if let events = expect["events"]?.array {
      problems += Match.list(
        events, o.events, tol, path: "events",
        loose: closeTimeTolerance.map { (o.closeEvents, $0) })
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
    if v.predict != nil {
      problems += Match.list(expect["predicted"]?.array ?? [], o.predicted, tol, path: "predicted", strict: true)
    }
    return problems
  }

  /// Compares two outcomes of one vector member by member (no member may be missing or
  /// extra); errors by `code` and `seq` only, their messages being for humans. The `t` of
  /// `reference`'s close events may differ by `closeTimeTolerance`.
  public static func compare(
    _ reference: VectorOutcome, _ other: VectorOutcome, closeTimeTolerance: Double
  ) -> [String] {
    func codes(_ errors: [JSON]) -> [JSON] { errors.map { $0.removing("message") } }
    return Match.list(
      reference.events, other.events, 0, path: "events", strict: true,
      loose: (reference.closeEvents, closeTimeTolerance))
      + Match.list(codes(reference.errors), codes(other.errors), 0, path: "errors", strict: true)
      + Match.list(reference.scenes, other.scenes, 0, path: "scenes", strict: true)
      + Match.value(reference.finalScene, other.finalScene, 0, path: "scene", strict: true)
      + Match.list(reference.predicted, other.predicted, 0, path: "predicted", strict: true)
  }
}

/// Partial, tolerant JSON matching: an expected object lists only the keys it checks (a
/// `null` there means the key must be absent or null); arrays match element by element and
/// must have the same length; numbers match within the tolerance. `strict` also refuses
/// members the expected object does not list.
public enum Match {
  /// `loose`: at these indexes the elements' `t` may differ by up to the given tolerance.
  public static func list(
    _ expected: [JSON], _ actual: [JSON], _ tol: Double, path: String, strict: Bool = false,
    loose: (indexes: Set<Int>, tolerance: Double)? = nil
  ) -> [String] {
    var problems: [String] = []
    if expected.count != actual.count {
      problems.append(
        "\(path): expected \(expected.count) items, got \(actual.count): \(JSON.array(actual))")
    }
    for (i, (e, a)) in zip(expected, actual).enumerated() {
      var (e, a) = (e, a)
      if let loose, loose.indexes.contains(i), let et = e["t"]?.number, let at = a["t"]?.number {
        if abs(et - at) > loose.tolerance {
          problems.append("\(path)[\(i)].t: expected \(et) ± \(loose.tolerance), got \(at)")
        }
        (e, a) = (e.removing("t"), a.removing("t"))
      }
      problems += value(e, a, tol, path: "\(path)[\(i)]", strict: strict)
    }
    return problems
  }

  public static func value(
    _ e: JSON, _ a: JSON, _ tol: Double, path: String, strict: Bool = false
  ) -> [String] {
    switch (e, a) {
    case (.object(let eo), .object(let ao)):
      let keys = strict ? Set(eo.keys).union(ao.keys) : Set(eo.keys)
      return keys.sorted().flatMap { key in
        value(eo[key] ?? .null, ao[key] ?? .null, tol, path: "\(path).\(key)", strict: strict)
      }
    case (.array(let ea), .array(let aa)):
      return list(ea, aa, tol, path: path, strict: strict)
    case (.number(let en), .number(let an)):
      return abs(en - an) <= tol ? [] : ["\(path): expected \(en), got \(an)"]
    default:
      return e == a ? [] : ["\(path): expected \(e), got \(a)"]
    }
  }
}

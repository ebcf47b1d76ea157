import TouchProtocol

/// Reads members of one JSON object, throwing a `Failure` that names the member.
struct MessageReader {
  struct Failure: Error {
    var what: String
  }

  let value: JSONValue
  init(_ value: JSONValue) { self.value = value }

  func member(_ key: String) throws -> JSONValue {
    guard let m = value[key], !m.isNull else { throw Failure(what: "no '\(key)'") }
    return m
  }

  func string(_ key: String) throws -> String {
    guard let s = try member(key).stringValue else { throw Failure(what: "'\(key)' is not a string") }
    return s
  }

  func double(_ key: String) throws -> Double {
    guard let d = try member(key).doubleValue else { throw Failure(what: "'\(key)' is not a number") }
    return d
  }

  func int(_ key: String) throws -> Int {
    guard let i = try member(key).intValue else { throw Failure(what: "'\(key)' is not an integer") }
    return i
  }

  func optionalInt(_ key: String) -> Int? { value[key]?.intValue }
  func optionalDouble(_ key: String) -> Double? { value[key]?.doubleValue }

  func array(_ key: String) throws -> [JSONValue] {
    guard let a = try member(key).arrayValue else { throw Failure(what: "'\(key)' is not an array") }
    return a
  }

  func strings(_ key: String) throws -> [String] {
    try array(key).map {
      guard let s = $0.stringValue else { throw Failure(what: "'\(key)' holds a non-string") }
      return s
    }
  }

  func vector(_ key: String) throws -> Vector {
    let v = MessageReader(try member(key))
    return Vector(x: try v.double("x"), y: try v.double("y"))
  }

  func origin() throws -> Origin {
    Origin(
      source: try string("source"), seq: Int64(try int("seq")), t: try double("t"), rt: try double("rt"))
  }

  func device() throws -> Device {
    let d = MessageReader(try member("device"))
    return Device(name: try d.string("name"), width: try d.double("width"), height: try d.double("height"))
  }

  func sourceInfo(idKey: String) throws -> SourceInfo {
    SourceInfo(id: try string(idKey), device: try device(), scene: value["scene"]?.stringValue)
  }

  func touch() throws -> TouchPoint {
    let name = try string("phase")
    guard let phase = TouchPhase(rawValue: name) else { throw Failure(what: "unknown phase '\(name)'") }
    return TouchPoint(
      id: Int64(try int("id")), phase: phase, x: try double("x"), y: try double("y"),
      force: optionalDouble("force"), radiusX: optionalDouble("radiusX"), radiusY: optionalDouble("radiusY"),
      details: contactDetails())
  }

  /// A `touches` message: its entries, and the server's own members on them (`palm`,
  /// `predicted`) by touch id.
  func touchesMessage() throws -> TouchesMessage {
    var m = TouchesMessage(origin: try origin(), touches: [])
    for entry in try array("touches") {
      let e = MessageReader(entry)
      let touch = try e.touch()
      m.touches.append(touch)
      if entry["palm"]?.boolValue == true { m.palms.insert(touch.id) }
      if let p = entry["predicted"] {
        let r = MessageReader(p)
        m.predicted[touch.id] = PredictedPosition(x: try r.double("x"), y: try r.double("y"))
      }
    }
    return m
  }

  /// A touch's pen members as the server mirrored them; nil when it has none (a finger).
  func contactDetails() -> ContactDetails? {
    let kind = value["kind"]?.stringValue.flatMap(TouchKind.init(rawValue:))
    let hover = value["hover"]?.boolValue
    let d = ContactDetails(
      kind: kind, pressure: optionalDouble("pressure"), radius: optionalDouble("radius"),
      altitude: optionalDouble("altitude"), azimuth: optionalDouble("azimuth"), hover: hover)
    return d == ContactDetails() ? nil : d
  }

  func welcome() throws -> Welcome {
    let roleName = try string("role")
    guard let role = Welcome.Role(rawValue: roleName) else { throw Failure(what: "unknown role '\(roleName)'") }
    var limits: [String: Int] = [:]
    if case .object(let members) = try member("limits") {
      for (k, v) in members { if let i = v.intValue { limits[k] = i } }
    }
    let sources = try (value["sources"]?.arrayValue ?? []).map { try MessageReader($0).sourceInfo(idKey: "id") }
    let scenes = try (value["scenes"]?.arrayValue ?? []).map {
      let s = MessageReader($0)
      return SceneSnapshot(source: try s.string("source"), state: try s.member("state"))
    }
    return Welcome(
      role: role, session: try string("session"), serverTime: try double("serverTime"), limits: limits,
      source: value["source"]?.stringValue, resumed: value["resumed"]?.boolValue ?? false, sources: sources,
      scenes: scenes)
  }

  func gesture() throws -> GestureMessage {
    let kindName = try string("gesture")
    let stateName = try string("state")
    guard let kind = GestureKind(rawValue: kindName) else { throw Failure(what: "unknown gesture '\(kindName)'") }
    guard let state = GestureState(rawValue: stateName) else { throw Failure(what: "unknown state '\(stateName)'") }
    let payload: GesturePayload
    switch kind {
    case .tap: payload = .tap(taps: try int("taps"))
    case .longpress: payload = .longpress
    case .pan: payload = .pan(translation: try vector("translation"), velocity: try vector("velocity"))
    case .pinch: payload = .pinch(scale: try double("scale"), velocity: try double("velocity"))
    case .rotation: payload = .rotation(rotation: try double("rotation"), velocity: try double("velocity"))
    case .swipe:
      let name = try string("direction")
      guard let direction = SwipeDirection(rawValue: name) else { throw Failure(what: "unknown direction '\(name)'") }
      payload = .swipe(
        direction: direction, translation: value["translation"] == nil ? nil : try vector("translation"),
        velocity: try vector("velocity"))
    case .shape:
      let b = MessageReader(try member("bounds"))
      payload = .shape(
        name: try string("name"), score: try double("score"),
        bounds: ShapeBounds(x: try b.double("x"), y: try b.double("y"), width: try b.double("width"), height: try b.double("height")))
    }
    let fingers = try (value["fingers"]?.arrayValue ?? []).map {
      let f = MessageReader($0)
      return GestureFinger(
        id: Int64(try f.int("id")), x: try f.double("x"), y: try f.double("y"), regions: try f.strings("regions"))
    }
    return GestureMessage(
      origin: try origin(), id: try int("id"), state: state, x: try double("x"), y: try double("y"),
      touches: try int("touches"), regions: try strings("regions"), fingers: fingers, payload: payload)
  }
}

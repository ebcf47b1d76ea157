import TouchProtocol

/// What a drawing shows of one recording: the source's surface (device, scene, regions), its
/// fingers' strokes, and the gestures the engine recognized, read from the recording's lines
/// and from what its replay gave an observer.
struct RecordingContent {
  var session = "?"
  var connection = 0
  var deviceName = "?"
  var width = 0.0
  var height = 0.0
  var scene: String?
  /// The scene's regions at the start and at the end (they can move: flatcube's squares).
  var firstRegions: [SceneRegion] = []
  var lastRegions: [SceneRegion] = []
  /// The final scene state in a few words ("scale 2.50" for zoom).
  var sceneSummary: String?
  var strokes: [FingerStroke] = []
  var gestures: [GestureSpan] = []
  var frames = 0
  /// Device time (ms) of the first and last frame.
  var firstT = 0.0
  var lastT = 0.0

  init(recording: String, replayed: [String]) throws {
    let lines = recording.split(separator: "\n", omittingEmptySubsequences: true)
    guard let first = lines.first, let header = Self.object(first), header["type"]?.stringValue == "recording" else {
      throw RecordingDrawingError("not a touch-relay recording (no header line)")
    }
    session = header["session"]?.stringValue ?? "?"
    connection = header["connection"]?.intValue ?? 0
    let messages = replayed.compactMap { Self.object(Substring($0)) }
    // The frames as the server took them (the replay's raw mirror); without it, as sent.
    var frames = messages.filter { $0["type"]?.stringValue == "touches" }
    let sent = lines.dropFirst().compactMap { Self.object($0) }.compactMap { $0["in"]?.stringValue }
      .compactMap { Self.object(Substring($0)) }
    if frames.isEmpty { frames = sent.filter { $0["type"]?.stringValue == "frame" } }
    if let hello = sent.first(where: { $0["type"]?.stringValue == "hello" }) {
      readDevice(hello["device"])
      scene = hello["scene"]?.stringValue
      firstRegions = SceneRegion.list(hello["regions"])
    } else if let joined = messages.first(where: { $0["type"]?.stringValue == "source" }) {
      readDevice(joined["device"])
      scene = joined["scene"]?.stringValue
    }
    let states = messages.filter { $0["type"]?.stringValue == "scene" }.compactMap { $0["state"] }.filter {
      $0.members != nil
    }
    if let s = states.first, !SceneRegion.list(s["regions"]).isEmpty { firstRegions = SceneRegion.list(s["regions"]) }
    lastRegions = states.last.map { SceneRegion.list($0["regions"]) } ?? []
    if lastRegions.isEmpty { lastRegions = firstRegions }
    if let s = states.last { sceneSummary = Self.summary(s) }
    readStrokes(frames)
    gestures = GestureSpan.spans(messages)
    // Without a device size (a recording cut before its hello), the strokes' extent stands in.
    if width <= 0 || height <= 0 {
      let points = strokes.flatMap(\.points)
      width = max(1, points.map(\.x).max() ?? 1)
      height = max(1, points.map(\.y).max() ?? 1)
    }
  }

  private mutating func readDevice(_ value: JSONValue?) {
    guard let d = value, d.members != nil else { return }
    deviceName = d["name"]?.stringValue ?? deviceName
    width = d["width"]?.doubleValue ?? width
    height = d["height"]?.doubleValue ?? height
  }

  private mutating func readStrokes(_ frames: [JSONValue]) {
    var open: [Int: Int] = [:]  // finger id -> index in strokes
    var first: Double?
    for f in frames {
      guard let t = f["t"]?.doubleValue, let touches = f["touches"]?.arrayValue else { continue }
      self.frames += 1
      if first == nil { first = t }
      lastT = t
      for touch in touches {
        guard let id = touch["id"]?.intValue, let phase = touch["phase"]?.stringValue,
          let x = touch["x"]?.doubleValue, let y = touch["y"]?.doubleValue
        else { continue }
        // A pen above the glass draws no stroke; a touch listed only as hovering has left the
        // glass without its `ended` (protocol §2.1): its stroke ends cancelled.
        if touch["hover"]?.boolValue == true {
          if let i = open.removeValue(forKey: id) { strokes[i].end = "cancelled" }
          continue
        }
        let point = (x: x, y: y, t: t)
        if phase == "began" || open[id] == nil {
          // A finger seen moving without a began (the recording starts mid-touch) opens a stroke too.
          open[id] = strokes.count
          strokes.append(FingerStroke(finger: id, points: [point], end: nil))
        } else if let i = open[id] {
          strokes[i].points.append(point)
        }
        if phase == "ended" || phase == "cancelled", let i = open[id] {
          strokes[i].end = phase
          open[id] = nil
        }
      }
    }
    firstT = first ?? 0
  }

  private static func summary(_ state: JSONValue) -> String? {
    switch state["scene"]?.stringValue {
    case "zoom":
      return state["scale"]?.doubleValue.map { "zoom, final scale " + SVGText.fixed($0, digits: 2) }
    case "flatcube":
      guard let counters = state["counters"]?.members else { return "flatcube" }
      return "flatcube, counters "
        + counters.sorted { $0.0 < $1.0 }.map { "\($0.0) \(SVGText.inline($0.1))" }.joined(separator: ", ")
    case "sketch":
      return "sketch, \(state["lines"]?.arrayValue?.count ?? 0) lines drawn"
    case let name?:
      return name
    default:
      return nil
    }
  }

  /// The line's JSON object, or nil if it is not one.
  static func object(_ line: Substring) -> JSONValue? {
    guard let value = JSONValue(parsing: line), value.members != nil else { return nil }
    return value
  }
}

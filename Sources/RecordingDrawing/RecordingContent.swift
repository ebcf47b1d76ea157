import Foundation

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
    guard let first = lines.first, let header = Self.object(first), header["type"] as? String == "recording" else {
      throw RecordingDrawingError("not a touch-relay recording (no header line)")
    }
    session = header["session"] as? String ?? "?"
    connection = (header["connection"] as? NSNumber)?.intValue ?? 0
    let messages = replayed.compactMap { Self.object(Substring($0)) }
    // The frames as the server took them (the replay's raw mirror); without it, as sent.
    var frames = messages.filter { $0["type"] as? String == "touches" }
    let sent = lines.dropFirst().compactMap { Self.object($0) }.compactMap { $0["in"] as? String }
      .compactMap { Self.object(Substring($0)) }
    if frames.isEmpty { frames = sent.filter { $0["type"] as? String == "frame" } }
    if let hello = sent.first(where: { $0["type"] as? String == "hello" }) {
      readDevice(hello["device"])
      scene = hello["scene"] as? String
      firstRegions = SceneRegion.list(hello["regions"])
    } else if let joined = messages.first(where: { $0["type"] as? String == "source" }) {
      readDevice(joined["device"])
      scene = joined["scene"] as? String
    }
    let states = messages.filter { $0["type"] as? String == "scene" }.compactMap { $0["state"] as? [String: Any] }
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

  private mutating func readDevice(_ value: Any?) {
    guard let d = value as? [String: Any] else { return }
    deviceName = d["name"] as? String ?? deviceName
    width = (d["width"] as? NSNumber)?.doubleValue ?? width
    height = (d["height"] as? NSNumber)?.doubleValue ?? height
  }

  private mutating func readStrokes(_ frames: [[String: Any]]) {
    var open: [Int: Int] = [:]  // finger id -> index in strokes
    var first: Double?
    for f in frames {
      guard let t = (f["t"] as? NSNumber)?.doubleValue, let touches = f["touches"] as? [[String: Any]] else { continue }
      self.frames += 1
      if first == nil { first = t }
      lastT = t
      for touch in touches {
        guard let id = (touch["id"] as? NSNumber)?.intValue, let phase = touch["phase"] as? String,
          let x = (touch["x"] as? NSNumber)?.doubleValue, let y = (touch["y"] as? NSNumber)?.doubleValue
        else { continue }
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

  private static func summary(_ state: [String: Any]) -> String? {
    switch state["scene"] as? String {
    case "zoom":
      return (state["scale"] as? NSNumber).map { String(format: "zoom, final scale %.2f", $0.doubleValue) }
    case "flatcube":
      guard let counters = state["counters"] as? [String: Any] else { return "flatcube" }
      return "flatcube, counters " + counters.keys.sorted().map { "\($0) \(counters[$0] ?? 0)" }.joined(separator: ", ")
    case "sketch":
      return "sketch, \((state["lines"] as? [Any])?.count ?? 0) lines drawn"
    case let name?:
      return name
    default:
      return nil
    }
  }

  static func object(_ line: Substring) -> [String: Any]? {
    try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  }
}

import Foundation
import MarkupReading
import RecordingDrawing
import RelayServer
import Testing

/// `touch-relay --replay FILE --svg`: what the drawing shows is what is in the recording and
/// what the engine recognized in its replay.
@Suite struct RecordingDrawingTests {
  /// A phone running `scene`: a double tap, a one-finger pan, a two-finger pinch spreading apart.
  static func script(scene: String = "zoom") -> RecordingScript {
    var s = RecordingScript(
      hello: #"{"type":"hello","device":{"name":"Script phone","width":412,"height":915},"scene":"\#(scene)"}"#)
    s.frame(after: 100, [(1, "began", 100, 200)])
    s.frame(after: 60, [(1, "ended", 100, 200)])
    s.frame(after: 90, [(2, "began", 102, 201)])
    s.frame(after: 60, [(2, "ended", 102, 201)])
    s.frame(after: 800, [(3, "began", 60, 700)])
    for step in 1...12 { s.frame(after: 16, [(3, "moved", 60 + Double(step) * 20, 700 + Double(step) * 5)]) }
    s.frame(after: 16, [(3, "ended", 300, 760)])
    s.frame(after: 600, [(4, "began", 180, 450), (5, "began", 230, 450)])
    for step in 1...12 {
      let spread = 25 + Double(step) * 3.5
      s.frame(after: 16, [(4, "moved", 205 - spread, 450), (5, "moved", 205 + spread, 450)])
    }
    s.frame(after: 16, [(4, "ended", 139, 450), (5, "ended", 271, 450)])
    return s
  }

  static func objects(_ messages: [String]) -> [[String: Any]] {
    messages.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
  }

  @Test func theDrawingShowsEachTouchAndTheRecognizedGestures() throws {
    let recording = Self.script().text
    let replayed = try RecordingReplay.replay(recording, raw: true)
    let svg = try RecordingDrawing.svg(recording: recording, replayed: replayed)
    let elements = try #require(XMLElements.parse(svg), "the SVG must be well-formed XML")
    #expect(elements.first?.name == "svg")

    // The surface is the device's, from the hello.
    let surface = try #require(elements.first { $0.attributes["id"] == "surface" })
    #expect(surface.attributes["data-width"] == "412")
    #expect(surface.attributes["data-height"] == "915")

    // One trail per touch, each with every frame that touch was in.
    let frames = Self.objects(replayed).filter { $0["type"] as? String == "touches" }
    var pointsPerFinger: [Int: Int] = [:]
    for f in frames {
      for t in f["touches"] as? [[String: Any]] ?? [] { pointsPerFinger[(t["id"] as! NSNumber).intValue, default: 0] += 1 }
    }
    let trails = elements.filter { $0.attributes["class"] == "trail" }
    #expect(trails.count == pointsPerFinger.count)
    for trail in trails {
      let finger = try #require(trail.attributes["data-finger"].flatMap { Int($0) })
      #expect(trail.attributes["data-points"] == pointsPerFinger[finger].map(String.init))
    }
    // The two fingers of the pinch in two colours.
    let colours = Dictionary(uniqueKeysWithValues: trails.map { ($0.attributes["data-finger"]!, $0.attributes["stroke"]!) })
    #expect(colours["4"] != colours["5"])
    // Each touch began and ended.
    #expect(elements.filter { $0.attributes["class"] == "began" }.count == pointsPerFinger.count)
    #expect(elements.filter { $0.attributes["class"] == "ended" }.count == pointsPerFinger.count)

    // The zoom scene has no regions; its final state is told.
    #expect(!elements.contains { $0.attributes["class"] == "region" })
    let zoom = try #require(Self.objects(replayed).last { $0["type"] as? String == "scene" }?["state"] as? [String: Any])
    let scale = try #require((zoom["scale"] as? NSNumber)?.doubleValue)
    #expect(elements.contains { $0.name == "text" && $0.text == String(format: "scene: zoom, final scale %.2f", scale) })

    // The timeline: one bar per gesture the engine reported, with its gist.
    let gestures = Self.objects(replayed).filter { $0["type"] as? String == "gesture" }
    let bars = elements.filter { $0.attributes["class"] == "gesture" }
    #expect(bars.count == Set(gestures.compactMap { ($0["id"] as? NSNumber)?.intValue }).count)
    let doubleTap = gestures.contains { $0["gesture"] as? String == "tap" && ($0["taps"] as? NSNumber)?.intValue == 2 }
    #expect(doubleTap, "the script should make a double tap")
    #expect(bars.contains { $0.attributes["data-gesture"] == "tap" && $0.attributes["data-label"] == "2×" })
    let pinchScale = try #require(
      gestures.last { $0["gesture"] as? String == "pinch" }.flatMap { ($0["scale"] as? NSNumber)?.doubleValue },
      "the script should make a pinch")
    #expect(pinchScale > 2)
    #expect(bars.contains { $0.attributes["data-gesture"] == "pinch" && $0.attributes["data-label"] == String(format: "×%.2f", pinchScale) })
    #expect(bars.contains { $0.attributes["data-gesture"] == "pan" })
    // Labels a reader sees: the rows, the facts.
    let texts = elements.filter { $0.name == "text" }.map(\.text)
    for row in Set(gestures.compactMap { $0["gesture"] as? String }) { #expect(texts.contains(row)) }
    #expect(texts.contains { $0.hasPrefix("Script phone, 412 × 915") })
    #expect(texts.contains("\(frames.count) frames over \(String(format: "%.1f", Self.duration(frames))) s of device time"))
  }

  @Test func aScenesRegionsAreDrawnUnderTheTrails() throws {
    let recording = Self.script(scene: "flatcube").text
    let replayed = try RecordingReplay.replay(recording, raw: true)
    let elements = try #require(XMLElements.parse(try RecordingDrawing.svg(recording: recording, replayed: replayed)))
    // The regions as the scene's first state in the replay has them, at the surface's scale.
    let state = try #require(Self.objects(replayed).first { $0["type"] as? String == "scene" }?["state"] as? [String: Any])
    let regions = state["regions"] as? [[String: Any]] ?? []
    #expect(!regions.isEmpty)
    let drawn = elements.filter { $0.attributes["class"] == "region" }
    #expect(drawn.map { $0.attributes["data-region"] ?? "" }.sorted() == regions.compactMap { $0["id"] as? String }.sorted())
    let surface = try #require(elements.first { $0.attributes["id"] == "surface" })
    let frame = try #require(elements.first { $0.name == "rect" && $0.attributes["rx"] == "10" })
    let scale = try #require(Double(frame.attributes["height"] ?? "")) / 915
    #expect(surface.attributes["data-height"] == "915")
    for r in regions {
      let id = try #require(r["id"] as? String)
      let rect = try #require(drawn.first { $0.attributes["data-region"] == id })
      let width = try #require((r["width"] as? NSNumber)?.doubleValue)
      #expect(abs(try #require(Double(rect.attributes["width"] ?? "")) - width * scale) < 0.02)
    }
    // Regions come first: trails are drawn over them.
    let firstTrail = try #require(elements.firstIndex { $0.attributes["class"] == "trail" })
    #expect(elements.lastIndex { $0.attributes["class"] == "region" }! < firstTrail)
  }

  static func duration(_ frames: [[String: Any]]) -> Double {
    let ts = frames.compactMap { ($0["t"] as? NSNumber)?.doubleValue }
    return ((ts.max() ?? 0) - (ts.min() ?? 0)) / 1000
  }

  @Test func textThatIsNotARecordingIsAnError() {
    #expect(throws: RecordingDrawingError.self) {
      try RecordingDrawing.svg(recording: #"{"type":"frame"}"#, replayed: [])
    }
  }

  @Test func aDeviceNameCannotBreakTheDrawing() throws {
    var s = RecordingScript(
      hello: #"{"type":"hello","device":{"name":"<b>&\"x\"</b>","width":300,"height":300}}"#)
    s.frame(after: 10, [(1, "began", 10, 10)])
    let recording = s.text
    let svg = try RecordingDrawing.svg(recording: recording, replayed: try RecordingReplay.replay(recording))
    let elements = try #require(XMLElements.parse(svg))
    #expect(elements.contains { $0.name == "text" && $0.text.hasPrefix(#"<b>&"x"</b>, 300 × 300"#) })
    // A touch still down when the recording ends: a trail that began and did not end.
    #expect(elements.filter { $0.attributes["class"] == "began" }.count == 1)
    #expect(elements.filter { $0.attributes["class"] == "ended" }.isEmpty)
  }
}

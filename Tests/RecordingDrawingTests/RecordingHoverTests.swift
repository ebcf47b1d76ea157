import MarkupReading
import RecordingDrawing
import RelayServer
import Testing

/// A pen hovering above the glass draws no stroke in a recording's drawing (a hover touches
/// nothing), and a touch listed only as hovering has left the glass without its `ended`
/// (protocol §2.1): its stroke ends cancelled.
@Suite struct RecordingHoverTests {
  static func entry(_ id: Int, _ phase: String, _ x: Double, _ y: Double, hover: Bool) -> String {
    #"{"id":\#(id),"phase":"\#(phase)","x":\#(x),"y":\#(y),"kind":"pen"\#(hover ? #","hover":true"# : "")}"#
  }

  @Test func aHoveringPenDrawsNoStroke() throws {
    var s = RecordingScript(
      hello: #"{"type":"hello","device":{"name":"Pen tablet","width":800,"height":600},"scene":"sketch"}"#)
    // The pen above the glass, then touching and drawing; then a finger that stops touching
    // and is listed as hovering.
    s.frame(after: 100, json: [Self.entry(9, "began", 50, 50, hover: true)])
    for i in 1...4 { s.frame(after: 16, json: [Self.entry(9, "moved", 50 + Double(i) * 10, 50, hover: true)]) }
    s.frame(after: 16, json: [Self.entry(9, "ended", 90, 50, hover: true)])
    s.frame(after: 16, json: [Self.entry(9, "began", 90, 50, hover: false)])
    for i in 1...5 { s.frame(after: 16, json: [Self.entry(9, "moved", 90 + Double(i) * 20, 50, hover: false)]) }
    s.frame(after: 16, json: [Self.entry(9, "ended", 190, 50, hover: false)])
    s.frame(after: 400, json: [Self.entry(3, "began", 100, 300, hover: false)])
    s.frame(after: 16, json: [Self.entry(3, "moved", 140, 300, hover: false)])
    s.frame(after: 16, json: [Self.entry(3, "moved", 150, 300, hover: true)])
    s.frame(after: 16, json: [Self.entry(3, "ended", 150, 300, hover: true)])
    let recording = s.text
    let replayed = try RecordingReplay.replay(recording, raw: true)
    let svg = try RecordingDrawing.svg(recording: recording, replayed: replayed)
    let elements = try #require(XMLElements.parse(svg))
    let trails = elements.filter { $0.attributes["class"] == "trail" }
    // One stroke per touch, with its touching points only.
    #expect(trails.map { $0.attributes["data-finger"] } == ["9", "3"])
    #expect(trails.map { $0.attributes["data-points"] } == ["7", "2"])
    #expect(elements.contains { $0.attributes["class"] == "ended" && $0.attributes["data-finger"] == "9" })
    #expect(elements.contains { $0.attributes["class"] == "cancelled" && $0.attributes["data-finger"] == "3" })
    #expect(!elements.contains { $0.attributes["class"] == "ended" && $0.attributes["data-finger"] == "3" })
  }
}

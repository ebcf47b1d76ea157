import GestureEngine
import Testing
import TouchProtocol

/// The sketch scene's lines follow a pen's pressure (gestures.md, sketch, "Width from
/// pressure"): one width per point, 4 × (0.25 + 1.5 × pressure) points; a line drawn without
/// pressure is what it was, byte for byte.
@Suite struct SketchPressureTests {
  static let pad = Device(name: "tablet", width: 800, height: 600)

  /// One finger from (100, 100) to the right, 10 points a frame, `pressures[i]` at frame i
  /// (nil: the entry has none); the scene's last state.
  static func draw(_ pressures: [Double?], kind: TouchKind? = nil) -> JSONValue? {
    var e = SourceEngine(hello: Hello(device: pad, scene: "sketch"), maxFingers: 10)
    var state: JSONValue?
    for (i, p) in pressures.enumerated() {
      let phase: TouchPhase = i == 0 ? .began : i == pressures.count - 1 ? .ended : .moved
      let details = p != nil || kind != nil ? ContactDetails(kind: kind, pressure: p) : nil
      let touch = TouchPoint(id: 1, phase: phase, x: 100 + Double(i) * 10, y: 100, details: details)
      if let s = e.process(Frame(seq: Int64(i + 1), t: Double(i) * 16, touches: [touch])).scene { state = s }
    }
    return state
  }

  static func width(_ p: Double) -> Double { 4 * (0.25 + 1.5 * p) }

  @Test func aPensLineHasAWidthPerPointFromItsPressure() throws {
    let pressures: [Double?] = [0, 0.2, 0.5, nil, 0.8, 1, 1]
    let state = try #require(Self.draw(pressures, kind: .pen))
    let line = try #require(state["lines"]?.arrayValue?.first)
    let widths = try #require(line["widths"]?.arrayValue).compactMap(\.doubleValue)
    #expect(line["points"]?.arrayValue?.count == pressures.count)
    // 1 at no pressure, today's 4 at 0.5 and where a point has none, 7 at the most.
    #expect(widths == pressures.map { $0.map(Self.width) ?? 4 })
    #expect(widths.first == 1 && widths[2] == 4 && widths[3] == 4 && widths.last == 7)
  }

  @Test func aLineInProgressCarriesItsWidthsToo() throws {
    var e = SourceEngine(hello: Hello(device: Self.pad, scene: "sketch"), maxFingers: 10)
    let pen = ContactDetails(kind: .pen, pressure: 0.25)
    _ = e.process(Frame(seq: 1, t: 0, touches: [TouchPoint(id: 7, phase: .began, x: 10, y: 10, details: pen)]))
    let out = e.process(
      Frame(seq: 2, t: 16, touches: [TouchPoint(id: 7, phase: .moved, x: 60, y: 10, details: pen)]))
    let drawing = try #require(out.scene?["drawing"]?.arrayValue?.first)
    #expect(drawing["widths"]?.arrayValue?.compactMap(\.doubleValue) == [Self.width(0.25), Self.width(0.25)])
  }

  @Test func aLineWithoutPressureIsTodaysBytes() throws {
    // A pen that says nothing of its pressure, and a plain finger: no widths, the same text.
    let plain = try #require(Self.draw(Array(repeating: nil, count: 6)))
    let pen = try #require(Self.draw(Array(repeating: nil, count: 6), kind: .pen))
    #expect(plain.jsonString == pen.jsonString)
    #expect(
      plain.jsonString
        == #"{"scene":"sketch","lines":[{"points":[[100,100],[110,100],[120,100],[130,100],[140,100],[150,100]]}],"selected":null,"drawing":[]}"#
    )
  }
}

import Testing

@testable import TouchProtocol

/// The hot-path frame decoder: what a source's frames turn into, and what they are refused for.
@Suite struct FrameDecodingTests {
  let decoder = MessageDecoder()

  func frame(_ text: String) throws -> Frame {
    guard case .frame(let f) = try decoder.decode(text).get() else {
      Issue.record("not a frame: \(text)")
      throw ProtocolError(.unknownType, "not a frame")
    }
    return f
  }

  func code(_ text: String) -> ErrorCode? {
    if case .failure(let e) = decoder.decode(text) { return e.code }
    return nil
  }

  @Test func decodesTheIssueExample() throws {
    let f = try frame(#"{"type":"frame","seq":7,"t":18234.5,"touches":[{"id":1,"phase":"began","x":120.5,"y":210}]}"#)
    #expect(f == Frame(seq: 7, t: 18234.5, touches: [TouchPoint(id: 1, phase: .began, x: 120.5, y: 210)]))
  }

  @Test func memberOrderDoesNotMatter() throws {
    let f = try frame(#"{"touches":[{"y":2,"x":1,"phase":"moved","id":3}],"t":5,"seq":1,"type":"frame"}"#)
    #expect(f.touches == [TouchPoint(id: 3, phase: .moved, x: 1, y: 2)])
    #expect(f.seq == 1 && f.t == 5)
  }

  @Test func optionalMembersAndUnknownOnesAreHandled() throws {
    let f = try frame(
      #"{"type":"frame","seq":1,"t":0,"extra":{"a":[1,2,{"b":null}]},"touches":[{"id":-4,"phase":"stationary","x":0.25,"y":-1e2,"force":0.5,"radiusX":null,"radiusY":3,"twist":1}]}"#
    )
    #expect(
      f.touches[0] == TouchPoint(id: -4, phase: .stationary, x: 0.25, y: -100, force: 0.5, radiusX: nil, radiusY: 3))
  }

  @Test func everyPhaseIsRead() throws {
    for phase in TouchPhase.allCases {
      let f = try frame(
        #"{"type":"frame","seq":1,"t":0,"touches":[{"id":1,"phase":"\#(phase.rawValue)","x":0,"y":0}]}"#)
      #expect(f.touches[0].phase == phase)
    }
  }

  @Test func numbersAreCorrectlyRounded() throws {
    let samples = [
      "0.1", "123456.789", "1e-7", "2.5E+3", "-0.0", "9007199254740993", "0.30000000000000004",
      "1234567890123456789012", "4.9406564584124654e-324", "1.7976931348623157e308",
    ]
    for s in samples {
      let f = try frame(#"{"type":"frame","seq":1,"t":\#(s),"touches":[]}"#)
      #expect(f.t == Double(s)!, "\(s)")
    }
  }

  @Test func escapedMemberNamesStillCount() throws {
    let f = try frame(#"{"type":"fr\u0061me","seq":1,"\u0074":4,"touches":[]}"#)
    #expect(f.t == 4)
  }

  @Test func malformedJSONIsBadJSON() {
    for text in [
      "", "not json", "{", #"{"type":"frame",}"#, #"{"type":"frame""#, "[1,2]", "42", #""frame""#,
      #"{"type":"frame","seq":01,"t":0,"touches":[]}"#, #"{"type":"frame","seq":1,"t":0,"touches":[]} x"#,
      #"{"type":"frame","seq":1.,"t":0,"touches":[]}"#, "{\"type\":\"fr\u{01}ame\"}", #"{"a":tru}"#,
      #"{'type':'frame'}"#, #"{"type":"frame","seq":1,"t":0,"touches":[],}"#,
    ] {
      #expect(code(text) == .badJSON, "\(text)")
    }
  }

  @Test func deepNestingIsRefusedNotRecursedInto() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(code(#"{"type":"frame","x":\#(deep)}"#) == .badJSON)
  }

  @Test func nonFiniteSpellingsAreNonFinite() {
    for v in ["NaN", "-NaN", "Infinity", "-Infinity", "inf", "nan", "1e999", "-1e400"] {
      #expect(
        code(#"{"type":"frame","seq":1,"t":0,"touches":[{"id":1,"phase":"began","x":\#(v),"y":0}]}"#) == .nonFinite,
        "\(v)")
    }
  }

  @Test func missingAndWrongTypedFieldsAreNamed() {
    let cases: [(String, ErrorCode, String)] = [
      (#"{"seq":1}"#, .missingField, "'type'"),
      (#"{"type":"frame","t":0,"touches":[]}"#, .missingField, "'seq'"),
      (#"{"type":"frame","seq":1,"touches":[]}"#, .missingField, "'t'"),
      (#"{"type":"frame","seq":1,"t":0}"#, .missingField, "'touches'"),
      (#"{"type":"frame","seq":1,"t":0,"touches":[{"id":1,"x":0,"y":0}]}"#, .missingField, "touches[0].phase"),
      (#"{"type":"frame","seq":"1","t":0,"touches":[]}"#, .wrongType, "'seq'"),
      (#"{"type":"frame","seq":1,"t":0,"touches":{}}"#, .wrongType, "'touches'"),
      (#"{"type":"frame","seq":1,"t":0,"touches":[5]}"#, .wrongType, "touches[0]"),
      (
        #"{"type":"frame","seq":1,"t":0,"touches":[{"id":1,"phase":"began","x":"3","y":0}]}"#, .wrongType,
        "touches[0].x"
      ),
      (#"{"type":7}"#, .wrongType, "'type'"),
      (#"{"type":"frame","seq":-1,"t":0,"touches":[]}"#, .badValue, "'seq'"),
      (#"{"type":"frame","seq":1.5,"t":0,"touches":[]}"#, .badValue, "'seq'"),
      (#"{"type":"frame","seq":1,"t":0,"touches":[{"id":1.5,"phase":"began","x":0,"y":0}]}"#, .badValue, "id"),
    ]
    for (text, expected, mention) in cases {
      guard case .failure(let e) = decoder.decode(text) else {
        Issue.record("accepted: \(text)")
        continue
      }
      #expect(e.code == expected, "\(text)")
      #expect(e.message.contains(mention), "\(e.message) should mention \(mention)")
    }
  }

  @Test func unknownPhaseAndTypeAreReported() {
    guard
      case .failure(let e) = decoder.decode(
        #"{"type":"frame","seq":3,"t":0,"touches":[{"id":1,"phase":"hover","x":0,"y":0}]}"#)
    else {
      Issue.record("accepted")
      return
    }
    #expect(e.code == .unknownPhase)
    #expect(e.seq == 3)
    #expect(e.message.contains("hover"))
    #expect(code(#"{"type":"dance"}"#) == .unknownType)
  }

  @Test func duplicateIdsAndTooManyTouchesAreRefused() {
    #expect(
      code(
        #"{"type":"frame","seq":1,"t":0,"touches":[{"id":1,"phase":"began","x":0,"y":0},{"id":1,"phase":"moved","x":1,"y":1}]}"#
      ) == .duplicateTouchID)
    let many = (0..<21).map { #"{"id":\#($0),"phase":"began","x":0,"y":0}"# }.joined(separator: ",")
    #expect(code(#"{"type":"frame","seq":1,"t":0,"touches":[\#(many)]}"#) == .tooManyTouches)
    let huge = Array(repeating: "1", count: 100_000).joined(separator: ",")
    #expect(code(#"{"type":"frame","seq":1,"t":0,"touches":[\#(huge)]}"#) == .tooManyTouches)
  }

  @Test func limitsComeFromConfiguration() {
    var limits = Limits()
    limits.maxTouchesPerFrame = 2
    let d = MessageDecoder(limits: limits)
    let three = (0..<3).map { #"{"id":\#($0),"phase":"began","x":0,"y":0}"# }.joined(separator: ",")
    if case .failure(let e) = d.decode(#"{"type":"frame","seq":1,"t":0,"touches":[\#(three)]}"#) {
      #expect(e.code == .tooManyTouches)
    } else {
      Issue.record("accepted 3 touches with a limit of 2")
    }
  }
}

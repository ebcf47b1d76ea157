import ConformanceSupport
import Foundation
import Testing

@testable import TouchProtocol

@Suite struct JSONWriterTests {
  func parse(_ bytes: [UInt8]) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
  }

  @Test func escapesStringsSoAnyParserReadsThemBack() throws {
    let nasty = "quote\" backslash\\ newline\n tab\t bell\u{07} emoji😀 nul\u{0}"
    var w = JSONWriter()
    w.beginObject()
    w.key("s")
    w.string(nasty)
    w.endObject()
    let obj = try parse(w.bytes) as? [String: Any]
    #expect(obj?["s"] as? String == nasty)
  }

  func text(_ v: Double) -> String {
    var w = JSONWriter()
    w.number(v)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  @Test func numbersHaveAtMostSixDecimals() throws {
    let cases: [(Double, String)] = [
      (0, "0"), (-0.0, "0"), (-0.5, "-0.5"), (1e-7, "0"), (-4e-7, "0"), (-6e-7, "-0.000001"),
      (0.1 + 0.2, "0.3"), (123456.789, "123456.789"), (2.0 / 3.0, "0.666667"), (-1.0 / 3.0, "-0.333333"),
      (0.9999996, "1"), (12.000_05, "12.00005"), (-2, "-2"), (9_007_199_254_740_991, "9007199254740991.0"),
      (1e300, "1e+300"), (-123_456_789_012.5, "-123456789012.5"),
    ]
    for (v, expected) in cases { #expect(text(v) == expected, "\(v)") }
    // Any value, read back, is within half a millionth of what was written, give or take the
    // read-back double's own rounding (an ulp of 2242.664646 is 4.5e-13: a value half-way
    // between two millionths comes back up to that much past 5e-7).
    var rng = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      let v = Double.random(in: -5000...5000, using: &rng) * (Bool.random(using: &rng) ? 1 : 1e-4)
      let back = try #require(Double(text(v)))
      #expect(abs(back - v) <= 5e-7 + back.ulp, "\(v) -> \(text(v))")
      #expect(try parse(Array(text(v).utf8)) is NSNumber)
    }
    var w = JSONWriter()
    w.beginArray()
    w.int(Int64.min)
    w.int(Int64.max)
    w.number(.nan)
    w.endArray()
    #expect(String(decoding: w.bytes, as: UTF8.self) == "[-9223372036854775808,9223372036854775807,null]")
  }

  /// The rule of protocol §2 the plain way: `rounded()`, division by ten, Swift's own text.
  /// `number` is written for speed (no libm, two digits per division); it must agree.
  func reference(_ v: Double) -> String {
    guard v.isFinite else { return "null" }
    if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
    guard abs(v) < 9e12 else { return v.description }
    let millionths = Int64((v * 1e6).rounded())
    let magnitude = millionths.magnitude
    var text = (millionths < 0 ? "-" : "") + String(magnitude / 1_000_000)
    let fraction = String(magnitude % 1_000_000)
    let padded = String(repeating: "0", count: 6 - fraction.count) + fraction
    let trimmed = padded.reversed().drop { $0 == "0" }.reversed()
    if !trimmed.isEmpty { text += "." + String(trimmed) }
    return text
  }

  @Test func numbersMatchTheRuleExactly() {
    var rng = SeededLCG(state: 7)
    var values: [Double] = [
      0.5e-6, -0.5e-6, 1.5e-6, 2.5e-6, 0.4999999e-6, 0.49999999999999994, 0.5, -0.5, 1e15, -1e15,
      1e15 - 0.5, 9e12, 9e12 - 0.25, -9e12 + 0.125, 8_999_999_999_999.999, 4503599627370495.5,
      Double(Int64.max), -Double(Int64.max), 1e19, 1.8e19, .infinity, -.infinity, .nan,
      .leastNonzeroMagnitude, -.leastNormalMagnitude, 99.999_999_5, 100, 99, 10, 9, 1e-6, 123.0000005,
    ]
    for _ in 0..<50_000 {
      let exponent = Double(rng.below(40) - 20)
      values.append((rng.unit() - 0.5) * pow(10, exponent))
      // Ties and near-ties in the seventh decimal, where rounding is decided.
      let halfMillionths = Int64(rng.below(1 << 30)) << 10 | Int64(rng.below(1 << 10))
      values.append(Double(halfMillionths - (1 << 39)) / 2e6)
    }
    var mismatches: [String] = []
    for v in values where text(v) != reference(v) { mismatches.append("\(v): \(text(v)) != \(reference(v))") }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
  }

  @Test func integersOfEveryLength() {
    var rng = SeededLCG(state: 11)
    var values: [Int64] = [0, -1, 9, 10, 99, 100, -99, -100, .max, .min, .max - 1, .min + 1]
    var power: Int64 = 1
    for _ in 0..<18 {
      power *= 10
      values += [power - 1, power, power + 1, -(power - 1), -power]
    }
    for _ in 0..<20_000 {
      let bits = UInt64(rng.below(1 << 31)) << 33 | UInt64(rng.below(1 << 31)) << 2 | UInt64(rng.below(4))
      values.append(Int64(bitPattern: bits) >> Int64(rng.below(63)))
    }
    for v in values {
      var w = JSONWriter()
      w.int(v)
      #expect(String(decoding: w.bytes, as: UTF8.self) == String(v))
    }
  }

  /// Text that is JSON already is copied by loads and stores sized to it: every length, at
  /// every offset of the buffer it lands in, comes out byte for byte.
  @Test func copiedTextOfEveryLength() {
    let source = (0..<80).map { UInt8(ascii: "a") &+ UInt8($0 % 26) }
    for length in 0...source.count {
      for offset in 0..<3 {
        var w = JSONWriter(capacity: 1)
        for _ in 0..<offset { w.int(1) }
        source[..<length].withUnsafeBytes { w.json($0) }
        #expect(w.bytes == Array(repeating: UInt8(ascii: "1"), count: offset) + source[..<length], "\(length), \(offset)")
      }
    }
  }

  @Test func plainAndEscapedStringsAndKeysMix() throws {
    var w = JSONWriter()
    w.beginObject()
    for (i, text) in ["plain", "with \"quote\"", "", "ünïcødé", "tab\tend"].enumerated() {
      w.key(escaping: i % 2 == 0 ? "k\(i)" : "k\"\(i)")
      w.string(text)
    }
    w.endObject()
    #expect(
      String(decoding: w.bytes, as: UTF8.self)
        == #"{"k0":"plain","k\"1":"with \"quote\"","k2":"","k\"3":"ünïcødé","k4":"tab\tend"}"#)
  }

  /// Commas are tracked per level: with bits for the first 64 levels and a flag per level
  /// beyond, in storage that grows (64 levels, then 128).
  @Test func commasAreRightAtAnyDepth() throws {
    for depth in [1, 2, 63, 64, 65, 100, 128, 129, 300] {
      var w = JSONWriter()
      var expected = ""
      for _ in 0..<depth {
        w.beginArray()
        w.int(1)
        expected += "[1,"
      }
      for level in 0..<depth {
        w.int(2)
        w.endArray()
        expected += "2]" + (level == depth - 1 ? "" : ",")
      }
      #expect(String(decoding: w.bytes, as: UTF8.self) == expected, "depth \(depth)")
    }
  }

  @Test func headroomIsReservedInFront() {
    var w = JSONWriter(headroom: 16)
    w.beginObject()
    w.endObject()
    #expect(w.bytes.count == 18)
    #expect(w.bytes.prefix(16).allSatisfy { $0 == 0 })
    #expect(w.bytes.suffix(2) == [UInt8(ascii: "{"), UInt8(ascii: "}")])
  }

  @Test func touchesMessageMirrorsTheFrame() throws {
    let frame = Frame(seq: 7, t: 18234.5, touches: [TouchPoint(id: 1, phase: .began, x: 120.5, y: 210, force: 0.5)])
    let bytes = ServerMessage.touches(frame, origin: Origin(source: "s1", seq: 7, t: 18234.5, rt: 99.25))
    let obj = try #require(try parse(bytes) as? [String: Any])
    #expect(obj["type"] as? String == "touches")
    #expect(obj["source"] as? String == "s1")
    #expect(obj["seq"] as? Int == 7)
    #expect(obj["rt"] as? Double == 99.25)
    let touch = try #require((obj["touches"] as? [[String: Any]])?.first)
    #expect(touch["phase"] as? String == "began")
    #expect(touch["x"] as? Double == 120.5)
    #expect(touch["force"] as? Double == 0.5)
    #expect(touch["radiusX"] == nil)
  }

  @Test func sceneStatesEncodeInTheirOwnOrder() {
    var w = JSONWriter()
    w.value(
      .object([
        ("scene", .string("flatcube")), ("counters", .object([("red", .number(2)), ("yellow", .number(0))])),
        ("recognizeAny", .bool(false)),
      ]))
    #expect(
      String(decoding: w.bytes, as: UTF8.self)
        == #"{"scene":"flatcube","counters":{"red":2,"yellow":0},"recognizeAny":false}"#)
  }

  @Test func takeBufferHandsOverWhatWasWrittenWithItsHeadroom() {
    var w = JSONWriter(headroom: 4, capacity: 1)
    w.beginObject()
    w.key("gesture")
    w.string("pan")
    w.endObject()
    let expected = w.bytes
    let taken = w.takeBuffer()
    defer { taken.deallocate() }
    #expect(Array(taken) == expected)
    #expect(Array(taken.dropFirst(4)) == Array(#"{"gesture":"pan"}"#.utf8))
  }

  @Test func wireNamesAreTheRawValues() {
    for p in TouchPhase.allCases { #expect(p.wireName.description == p.rawValue) }
    for g in GestureKind.allCases { #expect(g.wireName.description == g.rawValue) }
    for s in GestureState.allCases { #expect(s.wireName.description == s.rawValue) }
  }

  @Test func aLiteralStringIsWrittenQuoted() {
    var w = JSONWriter()
    w.beginArray()
    w.string(literal: "began")
    w.string(literal: "")
    w.endArray()
    #expect(String(decoding: w.bytes, as: UTF8.self) == #"["began",""]"#)
  }
}

extension JSONWriterTests {
  /// An origin that carries its source's text (`Origin.sourceMember`, kept per source by the
  /// server) gives the same messages, byte for byte, as one that does not, whatever the id.
  @Test(arguments: ["s1", "phone \"A\"", "ünï\\cødé", "tab\there"])
  func aKeptSourceTextWritesTheSameMessages(_ id: String) {
    let plain = Origin(source: id, seq: 9, t: 18301.5, rt: 697110.25)
    var kept = plain
    kept.sourceMember = ServerMessage.sourceMember(id)
    #expect(kept == plain)
    let frame = Frame(seq: 9, t: 18301.5, touches: [TouchPoint(id: 1, phase: .moved, x: 121, y: 211.5)])
    #expect(ServerMessage.touches(frame, origin: kept) == ServerMessage.touches(frame, origin: plain))
    let tap = GestureEvent(
      id: 4, gesture: .tap, state: .recognized, t: 18301, x: 121, y: 211, touches: 1, regions: ["red"], taps: 2)
    #expect(ServerMessage.gesture(tap, origin: kept, headroom: 16) == ServerMessage.gesture(tap, origin: plain, headroom: 16))
  }
}

extension JSONWriterTests {
  /// A gesture of a frame's origin, copying that origin's members from the frame's `touches`
  /// message (as the server does), is byte for byte the gesture written alone.
  @Test func aGestureCopyingItsFramesOriginIsTheWrittenOne() {
    for id in ["s1", "phone \"A\""] {
      for kept in [false, true] {
        let origin = Origin(
          source: id, seq: 12, t: 21.296, rt: 52_469_637.039322, sourceMember: kept ? ServerMessage.sourceMember(id) : nil)
        let frame = Frame(seq: 12, t: 21.296, touches: [TouchPoint(id: 1, phase: .moved, x: 277.7, y: 831.9)])
        var touches = JSONWriter(headroom: 16)
        let members = ServerMessage.write(frame, origin: origin, &touches)
        let pan = GestureEvent(
          id: 6, gesture: .pan, state: .changed, t: 21.296, x: 240.5, y: 330, touches: 1, regions: ["red"],
          translation: Vector(x: 40.5, y: -12), velocity: Vector(x: 812.25, y: -240))
        var copied = JSONWriter(headroom: 16)
        touches.withUnsafeBytes { bytes in
          ServerMessage.write(pan, origin: origin, originText: UnsafeRawBufferPointer(rebasing: bytes[members]), &copied)
        }
        #expect(copied.bytes == ServerMessage.gesture(pan, origin: origin, headroom: 16))
      }
    }
  }
}

import ConformanceSupport
import Foundation
import Testing

@_spi(Testing) @testable import TouchProtocol

/// A touch entry's pen members (`kind`, `pressure`, `radius`, `altitude`, `azimuth`, `hover`):
/// read alike by the compact reader and the full decoder, held to their ranges, mirrored as sent,
/// and absent from everything when a source sends none of them.
@Suite struct ContactDetailsDecodingTests {
  let decoder = MessageDecoder()

  func compact(_ text: String) -> ClientMessage? {
    var text = text
    return text.withUTF8 { CompactFrameReader.read(UnsafeRawBufferPointer($0), limits: decoder.limits) }
  }

  func full(_ text: String) -> Result<ClientMessage, ProtocolError> {
    var text = text
    return text.withUTF8 { decoder.decodeInFull(UnsafeRawBufferPointer($0)) }
  }

  func written(_ touches: [TouchPoint]) -> String {
    var w = JSONWriter()
    ServerMessage.write(touches, &w)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  /// The `touches` text the mirror copies, if the server's entry point calls it canonical.
  func canonicalTouches(_ message: String) -> String? {
    var copy = message
    return copy.withUTF8 { buffer in
      decoder.compactFrame(UnsafeRawBufferPointer(buffer))?.text.touches.map { String(decoding: $0, as: UTF8.self) }
    }
  }

  static let penTouches =
    #"[{"id":3,"phase":"moved","x":140.25,"y":96.5,"kind":"pen","pressure":0.42,"radius":0.5,"altitude":0.9,"azimuth":2.35},"#
    + #"{"id":4,"phase":"began","x":300,"y":410,"kind":"eraser","altitude":1.2,"hover":true},"#
    + #"{"id":5,"phase":"stationary","x":1,"y":2,"kind":"mouse","pressure":1,"radius":0,"altitude":0,"azimuth":0,"hover":false}]"#

  @Test func theFastPathReadsPenMembersAsTheFullDecoderDoesAndKeepsTheirText() throws {
    let text = #"{"type":"frame","seq":12,"t":18402.5,"touches":\#(Self.penTouches)}"#
    let fast = try #require(compact(text), "the compact reader gave up on a pen frame")
    #expect(Result.success(fast) == full(text))
    guard case .frame(let frame) = fast else { Issue.record("not a frame"); return }
    let pen = try #require(frame.touches[0].details)
    #expect(pen.kind == .pen && pen.pressure == 0.42 && pen.radius == 0.5)
    #expect(pen.altitude == 0.9 && pen.azimuth == 2.35 && pen.hover == nil)
    #expect(!frame.touches[0].isHovering && frame.touches[1].isHovering && !frame.touches[2].isHovering)
    #expect(frame.touches[1].details == ContactDetails(kind: .eraser, altitude: 1.2, hover: true))
    // In the writer's order: copied to observers as sent, and the writer writes the same.
    #expect(canonicalTouches(text) == Self.penTouches)
    #expect(written(frame.touches) == Self.penTouches)
  }

  @Test func anotherOrderIsReadInFullAndWrittenInTheWritersOrder() throws {
    let text =
      #"{"type":"frame","seq":1,"t":5,"touches":[{"hover":true,"azimuth":6.1,"pressure":0.25,"kind":"pen","id":1,"phase":"began","x":1,"y":2,"radius":3}]}"#
    let message = try decoder.decode(text).get()
    guard case .frame(let frame) = message else { Issue.record("not a frame"); return }
    #expect(canonicalTouches(text) == nil)
    #expect(
      written(frame.touches)
        == #"[{"id":1,"phase":"began","x":1,"y":2,"kind":"pen","pressure":0.25,"radius":3,"azimuth":6.1,"hover":true}]"#)
  }

  @Test func aFrameOfFrames() throws {
    let text = #"{"type":"frames","frames":[{"seq":1,"t":5,"touches":\#(Self.penTouches)}]}"#
    let fast = try #require(compact(text))
    #expect(Result.success(fast) == full(text))
  }

  /// A source that sends none of them gets today's touch points and today's bytes.
  @Test func aFingerWithoutThemIsUnchanged() throws {
    let touches = #"[{"id":1,"phase":"moved","x":130.2,"y":215.7,"force":0.5,"radiusX":9,"radiusY":9}]"#
    let text = #"{"type":"frame","seq":8,"t":1,"touches":\#(touches)}"#
    guard case .frame(let frame) = try #require(compact(text)) else { Issue.record("not a frame"); return }
    #expect(frame.touches[0].details == nil)
    #expect(canonicalTouches(text) == touches)
    #expect(written(frame.touches) == touches)
    // null counts as absent.
    let nulls = #"{"type":"frame","seq":8,"t":1,"touches":[{"id":1,"phase":"moved","x":1,"y":2,"kind":null,"pressure":null,"hover":null}]}"#
    guard case .frame(let f) = try decoder.decode(nulls).get() else { Issue.record("not a frame"); return }
    #expect(f.touches[0].details == nil)
    #expect(written(f.touches) == #"[{"id":1,"phase":"moved","x":1,"y":2}]"#)
  }

  /// Kept small: the engine copies touch points on every frame (PERFORMANCE.md).
  @Test func aTouchPointStaysSmall() {
    #expect(MemoryLayout<TouchPoint>.stride <= 120)
    #expect(MemoryLayout<ContactDetails?>.size <= 34)
  }

  static let refused: [(member: String, code: ErrorCode, path: String)] = [
    (#""pressure":1.5"#, .badValue, "touches[0].pressure"),
    (#""pressure":-0.01"#, .badValue, "touches[0].pressure"),
    (#""radius":-1"#, .badValue, "touches[0].radius"),
    (#""altitude":1.6"#, .badValue, "touches[0].altitude"),
    (#""altitude":-0.1"#, .badValue, "touches[0].altitude"),
    (#""azimuth":6.3"#, .badValue, "touches[0].azimuth"),
    (#""azimuth":-1"#, .badValue, "touches[0].azimuth"),
    (#""kind":"stylus""#, .badValue, "touches[0].kind"),
    (#""kind":"Pen""#, .badValue, "touches[0].kind"),
    (#""kind":1"#, .wrongType, "touches[0].kind"),
    (#""pressure":"hard""#, .wrongType, "touches[0].pressure"),
    (#""hover":1"#, .wrongType, "touches[0].hover"),
    (#""hover":"true""#, .wrongType, "touches[0].hover"),
  ]

  @Test(arguments: refused)
  func outOfRangeOrWrongTypeIsRefusedOnBothPaths(_ c: (member: String, code: ErrorCode, path: String)) {
    let text = #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1,"phase":"began","x":1,"y":2,\#(c.member)}]}"#
    #expect(compact(text) == nil, "the fast path must leave \(c.member) to the full decoder")
    for result in [decoder.decode(text), full(text)] {
      guard case .failure(let e) = result else {
        Issue.record("\(c.member) was taken")
        continue
      }
      #expect(e.code == c.code, "\(c.member): \(e.message)")
      #expect(e.message.contains(c.path), "\(e.message)")
      #expect(e.seq == 7)
    }
    // In a `frames` message, the sample is refused with its seq and the next one still counts.
    let frames =
      #"{"type":"frames","frames":[{"seq":7,"t":1,"touches":[{"id":1,"phase":"began","x":1,"y":2,\#(c.member)}]},{"seq":8,"t":2,"touches":[]}]}"#
    guard case .success(.frames(let samples)) = decoder.decode(frames), samples.count == 2 else {
      Issue.record("frames not read")
      return
    }
    guard case .failure(let e) = samples[0] else {
      Issue.record("sample taken")
      return
    }
    #expect(e.code == c.code && e.seq == 7 && e.message.hasPrefix("frames[0]: ") && e.message.contains(c.path), "\(e.message)")
    #expect((try? samples[1].get())?.seq == 8)
  }

  /// The ends of each range are in it.
  @Test func theEndsOfTheRangesAreTaken() throws {
    let members = [
      #""pressure":0"#, #""pressure":1"#, #""radius":0"#, #""altitude":0"#,
      #""altitude":1.5707963267948966"#, #""azimuth":0"#, #""azimuth":6.283185307179586"#,
    ]
    for m in members {
      let text = #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1,"phase":"began","x":1,"y":2,\#(m)}]}"#
      #expect((try? decoder.decode(text).get()) != nil, "\(m) refused")
      #expect((try? full(text).get()) != nil, "\(m) refused in full")
    }
  }

  @Test func kindWireNamesAreTheirRawValues() {
    for k in TouchKind.allCases { #expect(k.wireName.description == k.rawValue) }
  }
}

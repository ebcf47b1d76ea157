import ConformanceSupport
import Foundation
import Testing

@_spi(Testing) @testable import TouchProtocol

/// The compact reader is the fast path for frames; the full decoder is the reference. Whatever
/// the compact reader accepts must be exactly what the full decoder reads, and it must take the
/// shapes real clients send (or the fast path is never used).
@Suite struct CompactFrameReaderTests {
  let decoder = MessageDecoder()

  func compact(_ text: String) -> ClientMessage? {
    var text = text
    return text.withUTF8 { CompactFrameReader.read(UnsafeRawBufferPointer($0), limits: decoder.limits) }
  }

  func full(_ text: String) -> Result<ClientMessage, ProtocolError> {
    var text = text
    return text.withUTF8 { decoder.decodeInFull(UnsafeRawBufferPointer($0)) }
  }

  /// What clients send: this project's encoder, the web page's `JSON.stringify` (same order),
  /// touch-load's idle frames and batches, other member orders.
  static let taken: [String] = [
    #"{"type":"frame","seq":7,"t":18234.5,"touches":[{"id":1,"phase":"began","x":120.5,"y":210}]}"#,
    #"{"type":"frame","seq":0,"t":0,"touches":[]}"#,
    #"{"type":"frame","seq":9007199254740991,"t":-1.5e3,"touches":[{"id":-9007199254740991,"phase":"cancelled","x":-0,"y":1E-7}]}"#,
    #"{"type":"frame","seq":8,"t":18250.25,"touches":[{"id":1,"phase":"moved","x":130.2,"y":215.7,"force":0.5,"radiusX":9,"radiusY":9},{"id":2,"phase":"stationary","x":300,"y":400}]}"#,
    #"{"type":"frame","touches":[{"y":2,"x":1,"phase":"ended","id":3,"radiusY":4}],"t":5,"seq":6}"#,
    // Numbers off the reader's own path go through the scanner's: still taken, same values.
    #"{"type":"frame","seq":1,"t":12345678901234567.25,"touches":[{"id":0,"phase":"moved","x":0.05,"y":-0.125,"force":1e2,"radiusX":123456789012345,"radiusY":0.1234567890123456789}]}"#,
    #"{"type":"frames","frames":[]}"#,
    #"{"type":"frames","frames":[{"seq":41,"t":18300.0,"touches":[{"id":1,"phase":"moved","x":120.5,"y":210,"force":0.41}]},{"t":18304.2,"seq":42,"touches":[]}]}"#,
  ]

  @Test(arguments: taken)
  func takesWhatClientsSendAndAgreesWithTheFullDecoder(_ text: String) throws {
    let fast = try #require(compact(text), "the compact reader gave up on \(text)")
    #expect(Result.success(fast) == full(text))
    // The server's entry point for frames takes the same frames and nothing else.
    var copy = text
    let frame = copy.withUTF8 { decoder.compactFrame(UnsafeRawBufferPointer($0))?.frame }
    if case .frame(let f) = fast { #expect(frame == f) } else { #expect(frame == nil) }
  }

  /// Shapes it leaves to the full decoder: valid but not compact, or refused.
  static let leftToTheFullDecoder: [String] = [
    #"{ "type":"frame","seq":7,"t":1,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[]} "#,
    #"{"seq":7,"type":"frame","t":1,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[],"extra":true}"#,
    #"{"type":"frame","seq":7,"seq":8,"t":1,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1,"phase":"began","x":1,"y":2,"force":null}]}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1,"phase":"b\u0065gan","x":1,"y":2}]}"#,
    #"{"type":"frame","s\u0065q":7,"t":1,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1,"phase":"began","x":1,"y":2},{"id":1,"phase":"moved","x":1,"y":2}]}"#,
    #"{"type":"frame","seq":-1,"t":1,"touches":[]}"#,
    #"{"type":"frame","seq":1.5,"t":1,"touches":[]}"#,
    #"{"type":"frame","seq":9007199254740992,"t":1,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":1e400,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":NaN,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":-Infinity,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":"1","touches":[]}"#,
    #"{"type":"frame","seq":07,"t":1,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":1.,"touches":[]}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1.5,"phase":"began","x":1,"y":2}]}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1,"phase":"Began","x":1,"y":2}]}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1,"phase":"began","x":1}]}"#,
    #"{"type":"frame","seq":7,"t":1}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":{}}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[],}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[]}}"#,
    #"{"type":"frame","seq":7,"t":1,"touches":[]"#,
    #"{"type":"framed","seq":7,"t":1,"touches":[]}"#,
    #"{"type":"frames","frames":[{}]}"#,
    #"{"type":"frames","frames":[{"type":"frame","seq":1,"t":1,"touches":[]}]}"#,
    #"{"type":"frames","frames":{}}"#,
    #"{"type":"hello","device":{"width":390,"height":844}}"#,
  ]

  @Test(arguments: leftToTheFullDecoder)
  func givesUpOnEverythingElse(_ text: String) {
    #expect(compact(text) == nil, "taken: \(text)")
    var copy = text
    #expect(copy.withUTF8 { decoder.compactFrame(UnsafeRawBufferPointer($0)) } == nil)
    #expect(decoder.decode(text) == full(text))
  }

  @Test func givesUpPastTheLimits() {
    var limits = Limits()
    limits.maxTouchesPerFrame = 1
    limits.maxFramesPerMessage = 1
    let strict = MessageDecoder(limits: limits)
    let twoTouches =
      #"{"type":"frame","seq":7,"t":1,"touches":[{"id":1,"phase":"began","x":1,"y":2},{"id":2,"phase":"began","x":1,"y":2}]}"#
    let twoSamples = #"{"type":"frames","frames":[{"seq":1,"t":1,"touches":[]},{"seq":2,"t":2,"touches":[]}]}"#
    for text in [twoTouches, twoSamples] {
      var copy = text
      let fast = copy.withUTF8 { CompactFrameReader.read(UnsafeRawBufferPointer($0), limits: limits) }
      #expect(fast == nil)
      guard case .failure = strict.decode(text) else {
        Issue.record("accepted past the limit: \(text)")
        continue
      }
    }
  }

  /// Every one-byte deletion and many one-byte replacements of the client shapes: the decoder
  /// (compact reader first) answers exactly as the full decoder does, refusals included.
  @Test func agreesWithTheFullDecoderOnEveryOneByteChange() {
    let replacements = Array(#" ",:{}[]0-9.eE+\naxt"#.utf8)
    var compared = 0
    for text in Self.taken {
      let bytes = Array(text.utf8)
      var variants: [[UInt8]] = []
      for i in bytes.indices {
        var deleted = bytes
        deleted.remove(at: i)
        variants.append(deleted)
        for r in replacements where r != bytes[i] {
          var replaced = bytes
          replaced[i] = r
          variants.append(replaced)
        }
      }
      for v in variants {
        let answer = decoder.decode(v)
        let reference = v.withUnsafeBytes { decoder.decodeInFull($0) }
        if answer != reference {
          Issue.record("differs on \(String(decoding: v, as: UTF8.self)): \(answer) vs \(reference)")
        }
        if let frame = v.withUnsafeBytes({ decoder.compactFrame($0)?.frame }), reference != .success(.frame(frame)) {
          Issue.record("compactFrame differs on \(String(decoding: v, as: UTF8.self)): \(frame) vs \(reference)")
        }
        compared += 1
      }
    }
    #expect(compared > 10_000)
  }

  // MARK: - The touches text the mirror copies

  /// The `touches` text of `message` if `compactFrame` calls it canonical, and the frame.
  func canonicalTouches(_ message: String) -> (Frame, String?)? {
    var copy = message
    return copy.withUTF8 { buffer in
      let bytes = UnsafeRawBufferPointer(buffer)
      guard let (frame, text) = decoder.compactFrame(bytes) else { return nil }
      return (frame, text.touches.map { String(decoding: $0, as: UTF8.self) })
    }
  }

  func written(_ touches: [TouchPoint]) -> String {
    var w = JSONWriter()
    ServerMessage.write(touches, &w)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  /// A number in one of the spellings clients use, canonical or not.
  func spelling(_ rng: inout SeededLCG) -> String {
    let whole = rng.below(2) == 0 ? rng.below(1000) : rng.below(2_000_000_000)
    let sign = rng.below(4) == 0 ? "-" : ""
    switch rng.below(9) {
    case 0: return sign + String(whole)
    case 1: return sign + "0"
    case 2: return sign + "\(whole).\(rng.below(10))"
    case 3: return sign + "\(whole).\(String(rng.below(1_000_000) + 1_000_000).dropFirst())"
    case 4: return sign + "\(whole).\(rng.below(100))0"
    case 5: return sign + "\(whole).\(rng.below(10_000_000))"
    case 6: return sign + "\(whole)e\(rng.below(3))"
    case 7: return sign + "0.\(String(rng.below(1000) + 1000).dropFirst())"
    default: return sign + "\(rng.below(100_000_000_000_000)).\(rng.below(100))"
    }
  }

  /// Whatever the spelling, the text called canonical is byte for byte what the server writes
  /// for the touches read from it; the server's own writing of touch values is called canonical.
  @Test func theTouchesTextCalledCanonicalIsTheWritersOwn() throws {
    var rng = SeededLCG(state: 23)
    let phases = ["began", "moved", "stationary", "ended", "cancelled"]
    var copied = 0
    for n in 0..<20_000 {
      var touches: [String] = []
      for k in 0..<(1 + rng.below(3)) {
        var members = [
          #""id":\#(k + 1)"#, #""phase":"\#(phases[rng.below(5)])""#, #""x":\#(spelling(&rng))"#,
          #""y":\#(spelling(&rng))"#,
        ]
        if rng.below(3) == 0 { members.append(#""force":\#(spelling(&rng))"#) }
        if rng.below(2) == 0 { members += [#""radiusX":\#(spelling(&rng))"#, #""radiusY":\#(spelling(&rng))"#] }
        if rng.below(8) == 0 { members.swapAt(0, rng.below(members.count)) }
        touches.append("{" + members.joined(separator: ",") + "}")
      }
      let message = #"{"type":"frame","seq":\#(n),"t":1,"touches":[\#(touches.joined(separator: ","))]}"#
      guard let (frame, text) = canonicalTouches(message) else { continue }
      let ours = written(frame.touches)
      if let text {
        #expect(text == ours, "\(message)")
        copied += 1
      }
      // Screen coordinates, forces and radii are far below 1e9, where the reader calls every
      // number the writer writes canonical (above it, fractions are left to the writer).
      let values: [Double] = frame.touches.flatMap { p in [p.x, p.y, p.force ?? 0, p.radiusX ?? 0, p.radiusY ?? 0] }
      guard values.allSatisfy({ $0.magnitude < 1e9 }) else { continue }
      let again = #"{"type":"frame","seq":1,"t":1,"touches":\#(ours)}"#
      #expect(canonicalTouches(again)?.1 == ours, "the writer's own text not taken: \(ours)")
    }
    #expect(copied > 500)
  }
}

extension CompactFrameReaderTests {
  /// The `"seq":…,"t":…` text of `message` if `compactFrame` calls it canonical, and the frame.
  func canonicalHead(_ message: String) -> (Frame, String?)? {
    var copy = message
    return copy.withUTF8 { buffer in
      guard let (frame, text) = decoder.compactFrame(UnsafeRawBufferPointer(buffer)) else { return nil }
      return (frame, text.head.map { String(decoding: $0, as: UTF8.self) })
    }
  }

  /// What the server writes for a frame's `seq` and `t` (`ServerMessage.head`, the writing of
  /// every origin's).
  func writtenHead(_ frame: Frame) -> String {
    String(decoding: ServerMessage.head(seq: frame.seq, t: frame.t), as: UTF8.self)
  }

  /// Whatever the spelling and order of `seq` and `t`, the text called canonical is byte for
  /// byte what the server writes for them; the server's own writing of them is called
  /// canonical.
  @Test func theSeqAndTTextCalledCanonicalIsTheWritersOwn() throws {
    var rng = SeededLCG(state: 29)
    let seqs = ["0", "7", "1.0", "1e2", "9007199254740991", "123456789012", "-0"]
    var copied = 0
    for _ in 0..<20_000 {
      var members = [
        #""seq":\#(rng.below(2) == 0 ? String(rng.below(1_000_000)) : seqs[rng.below(seqs.count)])"#,
        #""t":\#(spelling(&rng))"#, #""touches":[]"#,
      ]
      if rng.below(4) == 0 { members.swapAt(rng.below(3), rng.below(3)) }
      let message = #"{"type":"frame",\#(members.joined(separator: ","))}"#
      guard let (frame, head) = canonicalHead(message) else { continue }
      if let head {
        #expect(head == writtenHead(frame), "\(message)")
        #expect(message.contains(#"{"type":"frame",\#(head),"touches":"#), "not seq then t: \(message)")
        copied += 1
      }
      // Below 1e9 for `t` and 10^15 for `seq` (the reader's own number path), the writer's
      // numbers are all called canonical.
      guard frame.t.magnitude < 1e9, frame.seq < 1_000_000_000_000_000 else { continue }
      let again = #"{"type":"frame",\#(writtenHead(frame)),"touches":[]}"#
      #expect(canonicalHead(again)?.1 == writtenHead(frame), "the writer's own text not taken: \(again)")
    }
    #expect(copied > 2_000)
  }

  /// The server reads every frame into one `Frame`, refilling its touch array: each answer is
  /// what a new frame gets, whatever the frame held before (more touches, fewer, a message
  /// given up on half-way).
  @Test func readingIntoOneFrameAgreesWithANewFrameEachTime() {
    var rng = SeededLCG(state: 31)
    let messages = Self.taken + Self.leftToTheFullDecoder
    var reused = Frame(seq: 0, t: 0, touches: [])
    var read = 0
    for _ in 0..<2_000 {
      let message = messages[rng.below(messages.count)]
      var text = message
      text.withUTF8 { buffer in
        let bytes = UnsafeRawBufferPointer(buffer)
        let fresh = decoder.compactFrame(bytes)
        let answer = decoder.compactFrame(bytes, into: &reused)
        #expect((answer == nil) == (fresh == nil), "\(message)")
        guard let fresh, let answer else { return }
        #expect(reused == fresh.frame, "\(message)")
        #expect(answer.touches.map(Array.init) == fresh.text.touches.map(Array.init))
        #expect(answer.head.map(Array.init) == fresh.text.head.map(Array.init))
        read += 1
      }
    }
    #expect(read > 200)
  }
}

extension CompactFrameReaderTests {
  /// The single frames among what clients send: only a `frame` is mirrored with copied text
  /// (a `frames` message's samples are written from their values).
  static let singleFrames = taken.filter { $0.hasPrefix(#"{"type":"frame","#) }

  /// The mirror's `touches` message, made with the parts of the source's text it may copy, is
  /// byte for byte the one written from the values alone.
  @Test(arguments: singleFrames + [
    #"{"type":"frame","seq":12,"t":41510081.625381,"touches":[{"id":2,"phase":"moved","x":1.5,"y":2}]}"#,
    #"{"type":"frame","t":3.25,"seq":4,"touches":[]}"#,
  ])
  func theMirrorWrittenWithCopiedTextIsTheWritersOwn(_ message: String) throws {
    var copy = message
    try copy.withUTF8 { buffer in
      let (frame, text) = try #require(
        decoder.compactFrame(UnsafeRawBufferPointer(buffer)), "the compact reader gave up on \(message)")
      let origin = Origin(source: "phone-1", seq: frame.seq, t: frame.t, rt: 52_341_234.567891)
      let copied = ServerMessage.touchesJSON(frame, origin: origin, headroom: 16, text: text).bytes
      let written = ServerMessage.touchesJSON(frame, origin: origin, headroom: 16).bytes
      #expect(String(decoding: copied, as: UTF8.self) == String(decoding: written, as: UTF8.self))
    }
  }

  /// The test above compares copied text with written text only where something is copied:
  /// the usual member order gives both parts to copy.
  @Test func theUsualFramesHaveTextToCopy() {
    var copied = 0
    for message in Self.singleFrames {
      var copy = message
      copy.withUTF8 { buffer in
        if let text = decoder.compactFrame(UnsafeRawBufferPointer(buffer))?.text, text.head != nil, text.touches != nil {
          copied += 1
        }
      }
    }
    #expect(copied >= 3, "\(copied) of \(Self.singleFrames.count) had both parts to copy")
  }
}

import Testing
import TouchProtocol

/// RFC 6455 §5.5.1 and §7.4: which close frames a server echoes, and which it answers with
/// 1002 or 1007; and the UTF-8 check that decides the latter, a chunk at a time.
@Suite struct CloseFrameTests {
  func frame(_ bytes: [UInt8]) -> CloseFrame {
    bytes.withUnsafeBytes { CloseFrame(payload: $0) }
  }

  func code(_ c: UInt16, _ reason: [UInt8] = []) -> [UInt8] { [UInt8(c >> 8), UInt8(c & 0xFF)] + reason }

  @Test func theCodesAnEndpointMaySendAreEchoed() {
    #expect(frame([]) == .empty)
    for c: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] {
      #expect(frame(code(c, Array("bye".utf8))) == .valid(code: c), "\(c)")
    }
  }

  @Test func otherCodesAndAOneBytePayloadAreProtocolErrors() {
    for c: UInt16 in [0, 999, 1004, 1005, 1006, 1012, 1015, 1016, 2999, 5000, 65535] {
      #expect(frame(code(c)) == .protocolError, "\(c)")
    }
    #expect(frame([0x03]) == .protocolError)
  }

  @Test func aReasonThatIsNotUTF8IsAnInvalidPayload() {
    #expect(frame(code(1000, [0xC3, 0x28])) == .invalidReason(code: 1000))
    #expect(frame(code(1000, Array("ça va".utf8))) == .valid(code: 1000))
  }
}

@Suite struct UTF8ValidatorTests {
  func valid(_ chunks: [[UInt8]]) -> Bool {
    var v = UTF8Validator()
    for c in chunks where !c.withUnsafeBytes({ v.consume($0) }) { return false }
    return v.isComplete
  }

  @Test func acceptsWhatUTF8IsEvenSplitAnywhere() {
    let text = Array("{\"name\":\"€ 𝄞 ß ça\"} plus a long ASCII tail to take the eight-byte path".utf8)
    #expect(valid([text]))
    for cut in 0...text.count {
      #expect(valid([Array(text[..<cut]), Array(text[cut...])]), "split at \(cut)")
    }
    #expect(valid([]))
  }

  /// One byte that cannot start UTF-8, or one two-byte character, at every place in a long
  /// ASCII text: wherever it falls in the 32- and 8-byte steps, refused and accepted.
  @Test func findsTheOneNonASCIIByteAnywhereInALongText() {
    let ascii = Array(#"{"type":"frame","seq":12,"t":3.5,"touches":[{"id":1,"phase":"moved","x":1,"y":2}]}"#.utf8)
    for place in 0...ascii.count {
      var bad = ascii
      bad.insert(0xFF, at: place)
      #expect(!valid([bad]), "0xFF at \(place)")
      var good = ascii
      good.insert(contentsOf: [0xC3, 0xA9], at: place)
      #expect(valid([good]), "é at \(place)")
    }
  }

  @Test func refusesWhatIsNot() {
    let bad: [[UInt8]] = [
      [0x80], [0xC0, 0xAF], [0xC1, 0x81], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
      [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xC3, 0x28], Array("abcdefgh".utf8) + [0xFE],
    ]
    for b in bad { #expect(!valid([b]), "\(b)") }
    // A sequence cut off at the end is not complete.
    #expect(!valid([[0xE2, 0x82]]))
  }
}

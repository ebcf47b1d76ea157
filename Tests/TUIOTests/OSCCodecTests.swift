import OSC
import Testing

/// The OSC 1.0 codec: the specification's own example bytes, round trips of every type tag,
/// and every kind of malformed packet refused with its kind, never a trap.
@Suite struct OSCCodecTests {
  func decode(_ bytes: [UInt8]) -> Result<OSCPacket, OSCError> { OSCDecoder.decode(bytes) }

  func kind(_ bytes: [UInt8]) -> OSCError.Kind? {
    if case .failure(let e) = decode(bytes) { return e.kind }
    return nil
  }

  /// The OSC 1.0 specification's example: "/oscillator/4/frequency" with the float 440.0.
  let specExample: [UInt8] =
    Array("/oscillator/4/frequency".utf8) + [0, 0x2C, 0x66, 0, 0, 0x43, 0xDC, 0, 0]

  @Test func theSpecificationsExampleReadsAndWritesTheSameBytes() {
    let m = OSCMessage("/oscillator/4/frequency", [.float32(440)])
    #expect(decode(specExample) == .success(.message(m)))
    #expect(OSCEncoder.encode(.message(m)) == specExample)
  }

  @Test func everyTypeTagRoundTrips() {
    let m = OSCMessage(
      "/all",
      [
        .int32(-7), .float32(0.25), .string("héllo"), .blob([1, 2, 3, 4, 5]), .int64(-1 << 40), .double(1e-300),
        .timeTag(0x0102_0304_0506_0708), .bool(true), .bool(false), .null, .string(""), .blob([]),
      ])
    let bytes = OSCEncoder.encode(.message(m))
    #expect(bytes.count % 4 == 0)
    #expect(decode(bytes) == .success(.message(m)))
  }

  @Test func bundlesRoundTripWithTheirTimeTag() {
    let b = OSCBundle(
      timeTag: 42, messages: [OSCMessage("/a", [.int32(1)]), OSCMessage("/bc", []), OSCMessage("/d", [.string("xyz")])])
    let bytes = OSCEncoder.encode(.bundle(b))
    #expect(Array(bytes.prefix(8)) == Array("#bundle".utf8) + [0])
    #expect(decode(bytes) == .success(.bundle(b)))
    #expect(decode(OSCEncoder.encode(.bundle(OSCBundle(messages: [])))) == .success(.bundle(OSCBundle(messages: []))))
  }

  @Test func aPrefixIsLeftInFrontAndAlignmentCountsFromThePacket() {
    var e = OSCEncoder(prefix: 3)
    e.append(OSCMessage("/ab", [.string("c")]))
    #expect(Array(e.bytes.dropFirst(3)) == OSCEncoder.encode(.message(OSCMessage("/ab", [.string("c")]))))
  }

  @Test func everyTruncationOfAValidPacketIsRefusedNotTrapped() {
    let b = OSCBundle(messages: [
      OSCMessage(
        "/tuio/2Dcur", [.string("set"), .int32(3), .float32(0.5), .float32(0.5), .float32(0), .float32(0), .float32(0)]),
      OSCMessage("/x", [.blob([9, 9, 9]), .double(2), .int64(3)]),
    ])
    let bytes = OSCEncoder.encode(.bundle(b))
    for n in 0..<bytes.count {
      let r = decode(Array(bytes.prefix(n)))
      if case .success(let p) = r {
        // Cut at an element boundary: a shorter bundle, still well-formed.
        guard case .bundle(let short) = p else {
          Issue.record("cut at \(n) read as a message")
          continue
        }
        #expect(short.messages.count < b.messages.count, "cut at \(n)")
      }
    }
    #expect(kind(Array(specExample.prefix(specExample.count - 2))) == .truncated)
    #expect(kind([]) == .truncated)
  }

  @Test func malformedPacketsAreRefusedWithTheirKind() {
    // No type tag string.
    #expect(kind(Array("/a".utf8) + [0, 0]) == .badTypeTag)
    // A tag the decoder does not read ('c', a char) and an array.
    #expect(kind(Array("/a".utf8) + [0, 0] + Array(",c".utf8) + [0, 0, 0, 0, 0, 0x41]) == .badTypeTag)
    #expect(kind(Array("/a".utf8) + [0, 0] + Array(",[i]".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]) == .badTypeTag)
    // An address without its slash; a string that is not UTF-8.
    #expect(kind(Array("ab".utf8) + [0, 0] + Array(",".utf8) + [0, 0, 0]) == .badString)
    #expect(kind(Array("/a".utf8) + [0, 0] + Array(",s".utf8) + [0, 0] + [0xFF, 0xFE, 0, 0]) == .badString)
    // NaN and infinity as float and double.
    #expect(kind(Array("/a".utf8) + [0, 0] + Array(",f".utf8) + [0, 0] + [0x7F, 0xC0, 0, 0]) == .nonFinite)
    #expect(
      kind(Array("/a".utf8) + [0, 0] + Array(",d".utf8) + [0, 0] + [0xFF, 0xF0, 0, 0, 0, 0, 0, 0]) == .nonFinite)
    // Bytes after the last argument.
    #expect(kind(specExample + [0, 0, 0, 1]) == .badSize)
    // A blob larger than what is left.
    #expect(kind(Array("/a".utf8) + [0, 0] + Array(",b".utf8) + [0, 0] + [0, 0, 0, 9, 1, 2, 3, 4]) == .truncated)
  }

  @Test func bundleElementsMustBeMessagesOfHonestSize() {
    let inner = OSCEncoder.encode(.bundle(OSCBundle(messages: [OSCMessage("/a")])))
    let nested = Array("#bundle".utf8) + [0] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, UInt8(inner.count)] + inner
    #expect(kind(nested) == .nestedBundle)
    let head = Array("#bundle".utf8) + [0] + [0, 0, 0, 0, 0, 0, 0, 1]
    #expect(kind(head + [0, 0, 0, 0]) == .badSize)
    #expect(kind(head + [0, 0, 0, 6] + Array("/a".utf8) + [0, 0]) == .badSize)
    #expect(kind(head + [0, 0, 0, 64] + specExample) == .truncated)
    #expect(kind(head + [0x80, 0, 0, 0]) == .truncated)
    #expect(kind(Array("#bundlX".utf8) + [0] + [0, 0, 0, 0, 0, 0, 0, 1]) == .badString)
  }
}

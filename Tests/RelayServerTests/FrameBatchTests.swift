import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

@testable import RelayServer

/// Frames packed for one send must be exactly what RFC 6455 says a server sends: parsed back
/// here by a reader written from the RFC, independent of the code under test.
@Suite struct FrameBatchTests {
  /// (opcode byte, payload) for every frame in `bytes`; nil if they do not parse exactly.
  func parse(_ bytes: [UInt8]) -> [(UInt8, [UInt8])]? {
    var out: [(UInt8, [UInt8])] = []
    var i = 0
    while i < bytes.count {
      guard i + 2 <= bytes.count else { return nil }
      let first = bytes[i]
      guard bytes[i + 1] & 0x80 == 0 else { return nil }  // a server never masks
      var n = Int(bytes[i + 1] & 0x7F)
      i += 2
      let extra = n == 126 ? 2 : n == 127 ? 8 : 0
      if extra > 0 {
        guard i + extra <= bytes.count else { return nil }
        n = bytes[i..<(i + extra)].reduce(0) { $0 << 8 | Int($1) }
        i += extra
      }
      guard i + n <= bytes.count else { return nil }
      out.append((first, Array(bytes[i..<(i + n)])))
      i += n
    }
    return out
  }

  @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 200_000])
  func eachPayloadLengthGetsTheHeaderTheRFCNames(length: Int) throws {
    let batch = FrameBatch(headroom: 16, capacity: 8)
    let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
    payload.withUnsafeBytes { batch.appendText($0) }
    let bytes = Array(UnsafeBufferPointer(start: batch.frames, count: batch.byteCount))
    let header = length < 126 ? 2 : length <= 65535 ? 4 : 10
    #expect(bytes.count == header + length)
    let frames = try #require(parse(bytes))
    #expect(frames.count == 1)
    #expect(frames[0].0 == 0x81)
    #expect(frames[0].1 == payload)
  }

  @Test func framesFollowEachOtherAndTheBufferIsReusable() throws {
    let batch = FrameBatch(headroom: 16, capacity: 4)
    let texts = ["{\"a\":1}", String(repeating: "x", count: 300), "", String(repeating: "é", count: 40_000)]
    for round in 0..<2 {
      batch.removeAll()
      for t in texts { Array(t.utf8).withUnsafeBytes { batch.appendText($0) } }
      #expect(batch.frameCount == texts.count, "round \(round)")
      let bytes = Array(UnsafeBufferPointer(start: batch.frames, count: batch.byteCount))
      let frames = try #require(parse(bytes))
      #expect(frames.map { String(decoding: $0.1, as: UTF8.self) } == texts)
      #expect(frames.allSatisfy { $0.0 == 0x81 })
    }
  }
}

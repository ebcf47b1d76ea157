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

/// Several messages pending for one observer leave in one send; the client must still see
/// each one whole and in order, for small and large messages and any batch size.
/// Serialized, gestures off and at most 20 fingers: bursts like this, three at once, starved the
/// timing-sensitive vector suite running beside it on a 2-core machine.
@Suite(.serialized) struct BatchedDeliveryTests {
  @Test(arguments: [32 * 1024, 0, 100])
  func aBurstArrivesWholeAndInOrder(batchBytes: Int) async throws {
    let relay = try TestRelay {
      $0.writeBatchBytes = batchBytes
      $0.gestures = false  // only the mirror matters here
      $0.limits.observerQueue = 10_000
      $0.limits.maxFramesPerSecond = 100_000
    }
    defer { relay.stop() }
    let (obs, _) = try await relay.observer("burst", query: "raw=1")
    let (src, _) = try await relay.source("burst")
    // Touch counts whose mirrors need 7- and 16-bit payload lengths. (A 64-bit one needs a
    // message over 64 KB, which a debug build parses slowly enough to upset the timing of the
    // suites running beside this one; FrameBatchTests covers that header.)
    func fingers(_ pair: Int) -> Int { [1, 3, 20, 2][pair % 4] }
    var frames: [String] = []
    for pair in 1...60 {
      let ids = 1...fingers(pair)
      let at = Double(pair) * 16
      frames.append(frameText(2 * pair - 1, t: at, ids.map { ($0, "began", at + 0.123456, Double($0) + 0.654321) }))
      frames.append(frameText(2 * pair, t: at + 8, ids.map { ($0, "cancelled", at + 0.123456, Double($0) + 0.654321) }))
    }
    // One flush: the server reads them in a few receives and queues many messages at once.
    try await src.send(texts: frames)
    for seq in 1...120 {
      let m = try await obs.nextJSON(type: "touches")
      #expect(m["seq"]?.intValue == seq)
      #expect(m["touches"]?.arrayValue?.count == fingers((seq + 1) / 2), "seq \(seq)")
      guard m["seq"]?.intValue == seq else { break }
    }
  }
}

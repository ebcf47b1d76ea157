import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

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

import Foundation
import OSC
import Testing
import TouchProtocol
import TouchRelayClient

/// `--tuio-out` on a node of a cluster: TUIO for the sources of its own node only, since the bus
/// carries the JSON messages (protocol/README.md, section 7, "TUIO"). Serialized: a Redis and
/// two nodes.
@Suite(.serialized) struct ClusterTUIOTests {
  /// A and B each have a source in one session; B sends it over TUIO. B's source comes out as
  /// bundles and its tap as `/touchrelay/gesture`; A's, which B's JSON observers do get,
  /// sends nothing there.
  @Test func aNodesTUIOOutputCarriesItsOwnSourcesOfASharedSession() async throws {
    let receiver = try TUIOOutTests.Receiver()
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let a = try await TestNode("A", redis: redis)
    defer { withExtendedLifetime(a) {} }
    let b = try await TestNode("B", redis: redis, extra: ["--tuio-out", "table=127.0.0.1:\(receiver.port)"])
    defer { withExtendedLifetime(b) {} }
    try await waitUntilMeshed([a, b], redis: redis)
    let (watcher, _) = try await b.observer("table", query: "raw=1")
    let (phoneA, idA) = try await a.source("table")
    let tap = [frameText(1, t: 1000, [(1, "began", 100, 200)]), frameText(2, t: 1080, [(1, "ended", 100, 200)])]
    try await phoneA.send(texts: tap)
    // B has had A's frames and its tap before its own source says a word.
    let seenA = try await watcher.collect { $0.type == "gesture" && $0["source"]?.stringValue == idA }
    #expect(seenA.contains { $0.type == "touches" && $0["source"]?.stringValue == idA }, "\(seenA)")
    let (phoneB, idB) = try await b.source("table")
    try await phoneB.send(texts: tap)
    let packets = await Task.detached { () -> [OSCPacket] in
      var got: [OSCPacket] = []
      // Until B's tap (after the double-tap wait), or 5 s of nothing.
      while let p = receiver.next() {
        got.append(p)
        if case .message(let m) = p, m.arguments.count > 1, m.arguments[1] == .string("tap") { break }
      }
      return got
    }.value
    let bundles = packets.filter { if case .bundle = $0 { return true } else { return false } }
    #expect(bundles.count == 2, "B's two frames: \(packets)")
    let names = bundles.compactMap { b -> String? in
      guard case .string(let name)? = b.messages.first?.arguments.dropFirst().first else { return nil }
      return name
    }
    #expect(!names.isEmpty && names.allSatisfy { $0.hasPrefix("touchrelay:\(idB)@") }, "\(names)")
    if let first = bundles.first {
      let set = TUIOOutTests.sets(first).first
      // The source's surface is 400 x 800.
      #expect(set.map { $0.0 == 0.25 && $0.1 == 0.25 } == true, "\(first)")
    }
    let gestures = packets.flatMap(\.messages).filter { $0.address == "/touchrelay/gesture" }
    #expect(gestures.map { $0.arguments.first } == [.string(idB)], "B's tap only: \(gestures)")
    #expect(!packets.flatMap(\.messages).contains { $0.arguments.contains(.string(idA)) }, "\(packets)")
    for ws in [watcher, phoneA, phoneB] { await ws.close() }
  }
}

import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// `?predict=MS` on a node of a cluster, for a source on another node: the receiving node
/// predicts from the records it gets (protocol/README.md, "Predicted positions"), and its
/// observers without `predict` get the records' bytes as they came. Serialized: a Redis and
/// two nodes.
@Suite(.serialized) struct ClusterPredictTests {
  @Test func anObserverOnAnotherNodeGetsPredictionsForARemoteSource() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (a, b) = (nodes[0], nodes[1])
    let (local, _) = try await a.observer("s", query: "raw=1&gestures=")
    let (plainB, _) = try await b.observer("s", query: "raw=1&gestures=")
    let (aheadB, _) = try await b.observer("s", query: "predict=33&gestures=")
    let (phone, id) = try await a.source("s")
    // B has heard of the source (its `joined` came over the bus) before its frames.
    let joined = try await aheadB.collect { $0.type == "source" && $0["source"]?.stringValue == id }
    #expect(joined.last?["event"]?.stringValue == "joined")
    try await phone.send(texts: PredictOverWebSocketTests.frames)
    let onA = try await PredictOverWebSocketTests.touchesTexts(local, 4)
    let onB = try await PredictOverWebSocketTests.touchesTexts(plainB, 4)
    let ahead = try await PredictOverWebSocketTests.touchesTexts(aheadB, 4)
    #expect(onB == onA, "B's plain observer gets A's bytes")
    #expect(ahead[0] == onA[0])
    #expect(
      ahead[1].hasSuffix(#""touches":[{"id":1,"phase":"moved","x":20,"y":10,"predicted":{"x":53,"y":10}}]}"#),
      "\(ahead[1])")
    #expect(
      ahead[2].hasSuffix(#""touches":[{"id":1,"phase":"moved","x":30,"y":10,"predicted":{"x":63,"y":10}}]}"#),
      "\(ahead[2])")
    #expect(ahead[3] == onA[3])
    let stripped = ahead[2].replacingOccurrences(of: #","predicted":\{[^}]*\}"#, with: "", options: .regularExpression)
    #expect(stripped == onA[2], "the record's bytes, with `predicted` spliced in")
    for ws in [local, plainB, aheadB, phone] { await ws.close() }
  }
}

import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// A node whose Redis is unreachable says so (`/healthz`'s `cluster.bus`, `touchrelay_bus_up`,
/// the welcome's `cluster.bus`), serves its own sources as if alone, and once Redis is back
/// shares them with the other nodes (protocol/README.md, section 7; docs/deployment.md).
/// Serialized: each test runs a Redis and two nodes.
@Suite(.serialized) struct ClusterBusDownTests {
  @Test func aSourceThatJoinsWhileRedisIsDownReachesOtherNodesOnceItIsBack() async throws {
    let redis = try await TestRedis(started: false)
    defer { withExtendedLifetime(redis) {} }
    let a = try await TestNode("A", redis: redis)
    defer { withExtendedLifetime(a) {} }
    let b = try await TestNode("B", redis: redis)
    defer { withExtendedLifetime(b) {} }
    for node in [a, b] { try await RedisAuthTests.expectDown(node) }
    let (local, welcome) = try await a.observer("down", query: "raw=1")
    #expect(welcome["cluster"]?["bus"]?.stringValue == "down", "\(welcome)")
    let (phone, id) = try await a.source("down")
    try await phone.send(texts: ClusterTests.tapFrames(1))
    let before = try await local.collect { $0.type == "touches" && $0["seq"]?.intValue == 2 }
    #expect(before.filter { $0.type == "touches" }.count == 2, "served locally: \(before)")

    try await redis.start()
    try await waitUntilMeshed([a, b], redis: redis)
    for node in [a, b] { #expect(metricValue(try await node.metrics(), "touchrelay_bus_up") == 1) }
    // B learns of A's source from the bus (A announces its sources when asked).
    let (observer, w) = try await b.observer("down", query: "raw=1", seeing: id)
    #expect(w["cluster"]?["bus"]?.stringValue == "up", "\(w)")
    let listed = w["sources"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    #expect(listed == [id], "B's welcome lists A's source")
    try await phone.send(texts: ClusterTests.tapFrames(1, from: 3, t0: 2000))
    let after = try await observer.collect { $0.type == "touches" && $0["seq"]?.intValue == 4 }
    let seqs = after.filter { $0.type == "touches" && $0["source"]?.stringValue == id }.compactMap { $0["seq"]?.intValue }
    #expect(seqs == [3, 4], "\(after)")
    for ws in [local, observer, phone] { await ws.close() }
  }

  @Test func aNodeSaysItsBusIsDownWhileRedisIsAwayAndUpOnceItIsBack() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (before, welcome) = try await nodes[0].observer("state")
    #expect(welcome["cluster"]?["bus"]?.stringValue == "up", "\(welcome)")
    #expect(metricValue(try await nodes[0].metrics(), "touchrelay_bus_up") == 1)
    redis.kill()
    #expect(try await nodes[0].waitForBus(up: false), "a Redis that died: the bus is down")
    try await RedisAuthTests.expectDown(nodes[0])
    try await redis.start()
    #expect(try await nodes[0].waitForBus(up: true), "Redis back: the bus is up by itself")
    #expect(metricValue(try await nodes[0].metrics(), "touchrelay_bus_up") == 1)
    let (after, again) = try await nodes[0].observer("state")
    #expect(again["cluster"]?["bus"]?.stringValue == "up", "\(again)")
    for ws in [before, after] { await ws.close() }
  }
}

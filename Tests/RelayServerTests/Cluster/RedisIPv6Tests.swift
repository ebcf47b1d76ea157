import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// `--redis redis://[::1]:PORT`: a Redis on IPv6, whatever the node listens on
/// (docs/deployment.md). Serialized: a Redis and a node or two each.
@Suite(.serialized) struct RedisIPv6Tests {
  @Test func aNodeListeningOnIPv6ReachesARedisOnIPv6() async throws {
    let redis = try await TestRedis(host: "::1")
    defer { withExtendedLifetime(redis) {} }
    #expect(redis.url.hasPrefix("redis://[::1]:"))
    let node = try await TestNode("V6", redis: redis, extra: ["--host", "::1"])
    defer { withExtendedLifetime(node) {} }
    #expect(node.address.hasPrefix("[::1]:"))
    #expect(try await node.waitForBus(up: true))
  }

  /// The listener's vhost has IPv6 off beside an IPv4 listener (the default `--host
  /// 127.0.0.1`); the bus connects through a vhost of its own, which has it on. Two nodes, so
  /// what one publishes is seen to reach the other.
  @Test func aNodeListeningOnIPv4ReachesARedisOnIPv6() async throws {
    let redis = try await TestRedis(host: "::1")
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["V4a", "V4b"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    #expect(nodes.allSatisfy { $0.address.hasPrefix("127.0.0.1:") })
    let view = try await nodes[0].clusterView()
    #expect(view.up)
    #expect(view.nodes.contains("V4b"))
  }

  /// The other way round: the client vhost, IPv6 on, still reaches an IPv4 address.
  @Test func aNodeListeningOnIPv6ReachesARedisOnIPv4() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    #expect(redis.url.hasPrefix("redis://127.0.0.1:"))
    let node = try await TestNode("V6to4", redis: redis, extra: ["--host", "::1"])
    defer { withExtendedLifetime(node) {} }
    #expect(node.address.hasPrefix("[::1]:"))
    #expect(try await node.waitForBus(up: true))
  }
}

import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// A Redis with a password (`requirepass`, docs/deployment.md): nodes given it share sessions;
/// a node given a wrong one, none, or one Redis does not have says why at error level, once,
/// reports its bus down (`/healthz`, `touchrelay_bus_up`, the welcome's `cluster.bus`), serves
/// its own sessions and keeps trying. Serialized: each test runs a Redis and nodes.
@Suite(.serialized) struct RedisAuthTests {
  static let secret = "s3cret-Pass"

  @Test func nodesGivenThePasswordShareASession() async throws {
    let redis = try await TestRedis(password: Self.secret)
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (obs, _) = try await nodes[1].observer("auth", query: "raw=1")
    let (phone, id) = try await nodes[0].source("auth")
    try await phone.send(texts: ClusterTests.tapFrames(1))
    let got = try await obs.collect { $0.type == "touches" && $0["seq"]?.intValue == 2 }
    let touches = got.filter { $0.type == "touches" && $0["source"]?.stringValue == id }
    #expect(touches.count == 2, "\(got)")
    for ws in [obs, phone] { await ws.close() }
  }

  /// The whole story of a wrong password: said once, down everywhere, local sessions served,
  /// retried; the same node started again with the right password joins.
  @Test func aWrongPasswordIsSaidOnceAndTheNodeServesItsOwnSessionsMeanwhile() async throws {
    let redis = try await TestRedis(password: Self.secret)
    defer { withExtendedLifetime(redis) {} }
    let log = try NodeLog()
    let node = try await TestNode(
      "W", redis: redis, redisURL: redis.url(password: "not-the-password"), log: log, logLevel: "warning")
    defer { withExtendedLifetime(node) {} }
    let refused = try await log.waitFor("Redis refused the password")
    #expect(refused.count == 1 && refused.allSatisfy { $0.contains("error") }, "\(log.text)")
    try await Self.expectDown(node)
    // Its own sessions go on.
    let (obs, _) = try await node.observer("local", query: "raw=1")
    let (phone, id) = try await node.source("local")
    #expect(id.hasPrefix("W."))
    try await phone.send(texts: ClusterTests.tapFrames(1))
    let got = try await obs.collect { $0.type == "touches" && $0["seq"]?.intValue == 2 }
    #expect(got.filter { $0.type == "touches" }.count == 2, "\(got)")
    // It keeps trying (with backoff), and says it only once.
    try await Self.expectRetries(node)
    #expect(log.lines(containing: "Redis refused the password").count == 1, "\(log.text)")
    #expect(log.lines(containing: "not reachable").isEmpty, "the cause is the password: \(log.text)")
    #expect(try await node.clusterView().up == false)
    for ws in [obs, phone] { await ws.close() }
    node.signal(SIGTERM)
    #expect(try await ShutdownTests.exited(node.process))
    let again = try await TestNode("W", redis: redis)
    defer { withExtendedLifetime(again) {} }
    #expect(try await again.waitForBus(up: true), "the right password: the bus comes up")
    #expect(metricValue(try await again.metrics(), "touchrelay_bus_up") == 1)
  }

  @Test func noPasswordForARedisThatNeedsOneSaysHowToGiveIt() async throws {
    let redis = try await TestRedis(password: Self.secret)
    defer { withExtendedLifetime(redis) {} }
    let log = try NodeLog()
    let node = try await TestNode("N", redis: redis, redisURL: redis.url(password: nil), log: log, logLevel: "warning")
    defer { withExtendedLifetime(node) {} }
    let said = try await log.waitFor("Redis needs a password: give it in --redis redis://:PASSWORD@host:port")
    #expect(said.count == 1 && said.allSatisfy { $0.contains("error") }, "\(log.text)")
    try await Self.expectDown(node)
    try await Self.expectRetries(node)
    #expect(log.lines(containing: "Redis needs a password").count == 1, "\(log.text)")
  }

  /// A password Redis does not have: the operator believes the link is guarded, and it is not.
  @Test func aPasswordForARedisWithoutOneIsRefused() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let log = try NodeLog()
    let node = try await TestNode("P", redis: redis, redisURL: redis.url(password: "x"), log: log, logLevel: "warning")
    defer { withExtendedLifetime(node) {} }
    let said = try await log.waitFor("Redis has no password")
    #expect(said.count == 1 && said.allSatisfy { $0.contains("error") }, "\(log.text)")
    try await Self.expectDown(node)
  }

  /// The bus is down in `/healthz`, `/metrics` and a new observer's welcome.
  static func expectDown(_ node: TestNode) async throws {
    #expect(try await node.clusterView().up == false)
    #expect(metricValue(try await node.metrics(), "touchrelay_bus_up") == 0)
    let (ws, welcome) = try await node.observer("bus-state")
    #expect(welcome["cluster"]?["bus"]?.stringValue == "down", "\(welcome)")
    #expect(welcome["cluster"]?["node"]?.stringValue == node.name, "\(welcome)")
    await ws.close()
  }

  /// The node tries again, more than once (`touchrelay_bus_reconnects_total` grows).
  static func expectRetries(_ node: TestNode) async throws {
    let first = metricValue(try await node.metrics(), "touchrelay_bus_reconnects_total") ?? 0
    try await eventually("\(node.name) reconnects twice more than the \(first) times so far") {
      (metricValue(try await node.metrics(), "touchrelay_bus_reconnects_total") ?? 0) >= first + 2
    }
  }
}

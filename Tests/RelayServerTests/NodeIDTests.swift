import Foundation
import RelayServer
import Testing
import TouchRelayClient

/// `--node-id`: the name one process goes by among several, as an operator reads it back.
@Suite struct NodeIDTests {
  @Test func theDefaultIsThisMachinesNameAndPIDAndIsValid() throws {
    let id = RelayConfiguration().nodeID
    #expect(NodeID.isValid(id), "\(id)")
    #expect(id.hasSuffix("-\(ProcessInfo.processInfo.processIdentifier)"), "\(id)")
    #expect(RelayOption.named("node-id")?.defaultValue == "HOSTNAME-PID")
  }

  @Test(arguments: ["", "a b", "node/1", "nöde", "n\"1", String(repeating: "n", count: NodeID.maxLength + 1)])
  func aNameOutsideTheCharsetOrTooLongIsRefusedAndSaysWhy(name: String) throws {
    do {
      _ = try RelayOption.configuration(flags: [:], environment: ["TOUCH_RELAY_NODE_ID": name])
      Issue.record("'\(name)' was accepted")
    } catch let e as RelayConfiguration.InvalidValue {
      #expect(e.description.contains("node id must be \(NodeID.allowed)"), "\(e)")
    }
    var c = RelayConfiguration()
    c.nodeID = name
    #expect(throws: RelayConfiguration.InvalidValue.self) { try c.validate() }
  }

  @Test func healthzMetricsAndTheStartUpLineNameTheNode() async throws {
    let relay = try TestRelay { $0.nodeID = "edge-1.a_b" }
    defer { relay.stop() }
    #expect(try await relay.health()["node"]?.stringValue == "edge-1.a_b")
    let metrics = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text
    #expect(metricValue(metrics, #"touchrelay_node_info{node="edge-1.a_b"}"#) == 1, "\(metrics)")
    let (p, line, _) = try await ShutdownTests.launchForLine(["--node-id", "n7"])
    defer {
      terminate(p)
    }
    #expect(line.hasSuffix(", node n7\n"), "\(line)")
  }
}

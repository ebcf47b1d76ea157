import Foundation
import Testing
import TouchRelayClient

/// `--trusted-proxy` end to end: a `touch-relay` process behind a "proxy" on 127.0.0.1 that
/// says who its clients are in `X-Forwarded-For`, as nginx does.
@Suite struct ForwardedClientTests {
  /// What an upgrade through the proxy for `client` got: 101 (kept open in `keep`), or the
  /// refusal's status and body.
  func upgrade(_ port: Int, forwardedFor client: String, keep: inout [WebSocketConnection]) async -> (Int?, String) {
    var c = WebSocketConfiguration()
    c.headers = [("X-Forwarded-For", client)]
    do {
      keep.append(try await WebSocketConnection.connect("ws://127.0.0.1:\(port)/v1/observe/site", configuration: c))
      return (101, "")
    } catch let e as WebSocketClientError {
      if case .upgradeRefused(let r) = e { return (r.status, r.text) }
      return (nil, "\(e)")
    } catch {
      return (nil, "\(error)")
    }
  }

  @Test func thePerAddressLimitAppliesPerForwardedClientAndTheLogsNameIt() async throws {
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("forwarded-\(UUID().uuidString).log")
    #expect(FileManager.default.createFile(atPath: log.path, contents: nil))
    defer { try? FileManager.default.removeItem(at: log) }
    let launched = try await SharedPortTests.launch(
      ["--port", "0", "--trusted-proxy", "127.0.0.1", "--max-connections-per-address", "2"], logLevel: "info",
      log: try FileHandle(forWritingTo: log))
    let p = launched.process
    let port = try #require(
      ShutdownTests.url(in: launched.line).split(separator: ":").last.flatMap { Int($0) }, "\(launched.line)")

    var keep: [WebSocketConnection] = []
    #expect(await upgrade(port, forwardedFor: "203.0.113.5", keep: &keep).0 == 101)
    #expect(await upgrade(port, forwardedFor: "203.0.113.5", keep: &keep).0 == 101)
    let (refused, body) = await upgrade(port, forwardedFor: "203.0.113.5", keep: &keep)
    #expect(refused == 503)
    #expect(body.contains("one address"), "\(body)")
    // Another client behind the same proxy is counted apart; a further proxy hop that is not
    // trusted is that client, whatever it claims before it.
    #expect(await upgrade(port, forwardedFor: "198.51.100.7", keep: &keep).0 == 101)
    #expect(await upgrade(port, forwardedFor: "203.0.113.5, 198.51.100.7", keep: &keep).0 == 101)
    #expect(await upgrade(port, forwardedFor: "198.51.100.7", keep: &keep).0 == 503)
    // Within the minute, a refusal again is not logged again.
    #expect(await upgrade(port, forwardedFor: "203.0.113.5", keep: &keep).0 == 503)
    for ws in keep { await ws.close() }
    terminate(p)

    let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
    let refusals = lines.filter { $0.contains("connection refused") }
    #expect(refusals.allSatisfy { $0.contains(" warning ") }, "\(refusals)")
    #expect(refusals.filter { $0.contains("peer=203.0.113.5") }.count == 1, "\(refusals)")
    #expect(refusals.filter { $0.contains("peer=198.51.100.7") }.count == 1, "\(refusals)")
    #expect(!refusals.contains { $0.contains("peer=127.0.0.1") }, "\(refusals)")
    let opened = lines.filter { $0.contains("connection open") }
    #expect(opened.filter { $0.contains("peer=203.0.113.5") }.count == 2, "\(opened)")
    #expect(opened.filter { $0.contains("peer=198.51.100.7") }.count == 2, "\(opened)")
  }

  /// Without `--trusted-proxy` (or from a peer not trusted) the header is anyone's claim: the
  /// limit counts the connection's own address.
  @Test func fromAPeerNotTrustedTheHeaderIsIgnored() async throws {
    let relay = try TestRelay {
      $0.trustedProxies = ["10.0.0.0/8"]
      $0.limits.maxConnectionsPerAddress = 1
    }
    defer { relay.stop() }
    var keep: [WebSocketConnection] = []
    #expect(await upgrade(relay.port, forwardedFor: "203.0.113.5", keep: &keep).0 == 101)
    #expect(await upgrade(relay.port, forwardedFor: "198.51.100.7", keep: &keep).0 == 503)
    for ws in keep { await ws.close() }
  }
}

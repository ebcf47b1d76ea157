import Foundation
import NIOCore
import NIOWebSocket
import Testing
import TouchProtocol
import TouchRelayClient

/// Tokens, origins and the capacity limits: refused in plain HTTP before any WebSocket traffic.
@Suite struct AccessTests {
  func status(_ relay: TestRelay, _ path: String, headers: [(String, String)] = []) async -> (Int?, String) {
    await relay.upgradeStatus(relay.url(path), headers: headers)
  }

  @Test func tokensAreRequiredPerRoleAndTheAnswerDoesNotRevealSessions() async throws {
    let relay = try TestRelay {
      $0.sourceToken = "phone-secret"
      $0.observerToken = "screen-secret"
    }
    defer { relay.stop() }
    #expect(await status(relay, "/v1/source/a").0 == 401)
    #expect(await status(relay, "/v1/source/a?token=wrong").0 == 403)
    #expect(await status(relay, "/v1/source/a?token=screen-secret").0 == 403)
    #expect(await status(relay, "/v1/source/a?token=phone-secret").0 == 101)
    #expect(await status(relay, "/v1/observe/a", headers: [("Authorization", "Bearer screen-secret")]).0 == 101)
    #expect(await status(relay, "/v1/observe/a", headers: [("Authorization", "Bearer phone-secret")]).0 == 403)

    // An existing session and a missing one get byte-identical refusals.
    let (_, _) = try await relay.source("exists", hello: nil, configuration: .init(), token: "phone-secret")
    let existing = await status(relay, "/v1/observe/exists?token=nope")
    let missing = await status(relay, "/v1/observe/nothing-here?token=nope")
    #expect(existing.0 == 403 && missing.0 == 403)
    #expect(existing.1 == missing.1)
    let existing401 = await status(relay, "/v1/observe/exists")
    let missing401 = await status(relay, "/v1/observe/nothing-here")
    #expect(existing401.0 == 401 && existing401.1 == missing401.1)
  }

  /// The operator's way: a `touch-relay` process, its tokens file changed, then SIGHUP.
  @Test func perSessionTokensFromAFileAreReloadedOnSIGHUP() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json")
    try Data(#"{"stage":{"source":"one","observer":["v1","v2"]}}"#.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let relay = try await RelayProcess(["--tokens", file.path])
    defer { relay.stop() }
    func status(_ path: String) async -> Int? { await upgradeStatus(relay.url(path)).0 }
    #expect(await status("/v1/source/stage?token=one") == 101)
    #expect(await status("/v1/observe/stage?token=v2") == 101)
    #expect(await status("/v1/observe/stage") == 401)
    // Sessions not in the file fall back to the server-wide tokens: here none.
    #expect(await status("/v1/observe/lobby") == 101)

    try Data(#"{"stage":{"source":"two"}}"#.utf8).write(to: file)
    #expect(try await relay.signal(SIGHUP, answeredBy: "tokens reloaded"), "\(relay.logged)")
    #expect(await status("/v1/source/stage?token=one") == 403)
    #expect(await status("/v1/source/stage?token=two") == 101)
    #expect(await status("/v1/observe/stage") == 101)

    // A broken file on reload keeps the tokens in force.
    try Data("{not json".utf8).write(to: file)
    #expect(try await relay.signal(SIGHUP, answeredBy: "tokens not reloaded"), "\(relay.logged)")
    #expect(await status("/v1/source/stage?token=one") == 403)
    #expect(await status("/v1/source/stage?token=two") == 101)
    #expect(relay.process.isRunning)
  }

  @Test func aBadTokensFileIsAStartUpError() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
    try Data(#"{"bad name!":{"source":"x"}}"#.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    #expect(throws: (any Error).self) { try TestRelay { $0.tokensFile = file.path } }
  }

  @Test func originsOutsideTheListAreRefused() async throws {
    let relay = try TestRelay { $0.allowedOrigins = ["https://screen.example"] }
    defer { relay.stop() }
    #expect(await status(relay, "/v1/observe/o", headers: [("Origin", "https://evil.example")]).0 == 403)
    #expect(await status(relay, "/v1/observe/o", headers: [("Origin", "https://screen.example")]).0 == 101)
    // Non-browser clients send no Origin.
    #expect(await status(relay, "/v1/observe/o").0 == 101)
  }

  @Test func capacityLimitsAnswer503() async throws {
    let relay = try TestRelay {
      $0.limits.maxObserversPerSession = 2
      $0.limits.maxSessions = 3
      $0.limits.maxConnectionsPerAddress = 5
    }
    defer { relay.stop() }
    var keep: [WebSocketConnection] = []
    for _ in 0..<2 { keep.append(try await relay.observer("full").0) }
    #expect(await status(relay, "/v1/observe/full").0 == 503)
    keep.append(try await relay.observer("s2").0)
    keep.append(try await relay.observer("s3").0)
    #expect(await status(relay, "/v1/observe/s4").0 == 503)
    // An existing session still takes sources; then the per-address limit (5) bites.
    keep.append(try await relay.source("s2").0)
    let (code, body) = await status(relay, "/v1/source/s3")
    #expect(code == 503)
    #expect(body.contains("address"))
    withExtendedLifetime(keep) {}
  }

  @Test func framesBeyondTheRateAreRefusedAndDropped() async throws {
    let relay = try TestRelay { $0.limits.maxFramesPerSecond = 20 }
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("fps", query: "raw=1")
    let (src, _) = try await relay.source("fps")
    // One flush: the server reads them together, so the bucket has no time to refill. Forty:
    // the twenty refused stay under a second's worth in one report window, so the source is
    // not paused as a flood (`FloodTests`).
    let frames = (1...40).map { seq in
      WebSocketFrame(
        fin: true, opcode: .text,
        data: ByteBuffer(string: frameText(seq, t: Double(seq), [(1, seq == 1 ? "began" : "moved", 1, 1)])))
    }
    try await src.send(frames: frames)
    // The source goes quiet: the count of the burst's remaining refusals comes within a window.
    var mirrored = 0
    var reports = RateLimitedReports()
    try await accountForFrames(40, mirroredTo: watcher, reportedTo: src, mirrored: &mirrored, reports: &reports)
    let (errors, dropped) = (reports.errors, reports.dropped)
    // About 20 of the burst pass (a one-second bucket of 20); every refused frame is counted
    // in a `rate_limited` error, and a burst buys two errors, not twenty.
    #expect(mirrored >= 20 && mirrored < 30, "\(mirrored) mirrored")
    #expect(mirrored + dropped == 40, "\(mirrored) mirrored + \(dropped) reported dropped")
    #expect(errors == 2, "\(errors) rate_limited errors")
  }
}

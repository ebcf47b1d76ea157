import Testing
import TouchRelayClient

/// The idle policy and the extensions offered at the upgrade.
@Suite struct KeepAliveTests {
  /// A phone gone silent, not even answering pings, is pinged, then hung up on by lws; its pan
  /// is cancelled and it is gone. What follows a hang-up (the cancel's stamps, `left` when its
  /// resume window ends) is the core's, at exact times in `ResumeWindowTimingTests`.
  @Test func aSilentSourceIsPingedThenHungUpOnAndItsPanCancelled() async throws {
    // lws checks both on one timer, the hang-up first: a service thread held up past both
    // times (the whole suite starts at once on two cores) hangs up without having pinged, so
    // the hang-up comes well after the ping. Long enough that a busy machine's pause between
    // the welcome and the pan is not silence, and that the observer, pinged too, has 5 s to
    // answer: at 2 s / 4 s a full CI pass on lws' poll loop hung up on the observer itself
    // (1006) before the source went quiet.
    let relay = try TestRelay {
      $0.pingInterval = UInt16(3 * TestTime.scale)
      $0.idleTimeout = UInt16(8 * TestTime.scale)
    }
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("quiet")
    var mute = WebSocketConfiguration()
    mute.autoPong = false
    let (phone, id) = try await relay.source("quiet", configuration: mute)
    // A pan in progress, then nothing at all, not even pongs.
    // In one flush, so no timer can fire between the frames on a loaded machine.
    try await phone.send(
      texts: [(1, 100.0), (2, 130.0), (3, 160.0)].map { seq, x in
        frameText(seq, t: Double(seq) * 16, [(1, seq == 1 ? "began" : "moved", x, 100)])
      })
    let began = try await watcher.nextJSON(type: "gesture")
    #expect(began["gesture"]?.stringValue == "pan" && began["state"]?.stringValue == "began")
    var sawPing = false
    var hungUp = false
    var cancelled = false
    var gone = false
    // Hung up after 8 s of silence; the loop ends as soon as all is seen, so the deadline
    // only bounds a failure.
    let deadline = ContinuousClock.now + TestTime.seconds(24)
    while ContinuousClock.now < deadline && !gone {
      if !hungUp {
        switch try? await phone.next(timeout: .milliseconds(500)) {
        case .ping?: sawPing = true
        case .close?: hungUp = true
        case nil: if !phone.isActive { hungUp = true }
        default: break
        }
      }
      if !cancelled, let m = try? await watcher.nextJSON(timeout: .milliseconds(500)),
        m["type"]?.stringValue == "gesture", m["gesture"]?.stringValue == "pan", m["state"]?.stringValue == "cancelled"
      {
        cancelled = true
      }
      // Hung up on, not a clean goodbye: held for its resume window, no longer connected.
      if hungUp && cancelled, try await relay.health()["sources"]?.intValue == 0 { gone = true }
    }
    #expect(sawPing, "the server never pinged")
    #expect(hungUp, "a source that never answered was not hung up on")
    #expect(cancelled, "the pan of a source that went silent was not cancelled")
    #expect(gone, "source \(id) still connected")
  }

  @Test func peersThatAnswerPingsStay() async throws {
    // Pinged every 2 s, hung up after 8 s of silence: several pings must be answered, with
    // room for a loaded machine's scheduling delays (at 1 s / 4 s, the suite's busy start once
    // held the client's pong past the hang-up).
    let relay = try TestRelay {
      $0.pingInterval = 2
      $0.idleTimeout = UInt16(8 * TestTime.scale)
    }
    defer { relay.stop() }
    let ws = try await WebSocketConnection.connect(relay.url("/v1/observe/alive"))
    let got = try await ws.receiveAll(for: .seconds(11))
    #expect(!got.contains { if case .close = $0 { return true } else { return false } })
    #expect(ws.isActive)
  }

  /// Silence is silence of every kind: a source that streams but never answers a ping (some
  /// embedded clients do not) is not hung up on, as protocol §6 says ("without any traffic").
  @Test func aPeerThatSendsButNeverAnswersPingsStays() async throws {
    let relay = try TestRelay {
      $0.pingInterval = 1
      $0.idleTimeout = UInt16(3 * TestTime.scale)
    }
    defer { relay.stop() }
    var mute = WebSocketConfiguration()
    mute.autoPong = false
    let (phone, _) = try await relay.source("streaming", configuration: mute)
    let end = ContinuousClock.now + TestTime.seconds(5)
    var seq = 0
    while ContinuousClock.now < end {
      seq += 1
      try await phone.send(text: frameText(seq, t: Double(seq) * 500, [(1, seq == 1 ? "began" : "moved", 10, 10)]))
      _ = try await phone.receiveAll(for: .milliseconds(500))
    }
    #expect(phone.isActive, "a source streaming for 5 s was hung up on after 3 s without a pong")
    await phone.close()
  }

  @Test func permessageDeflateIsOffered() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    var c = WebSocketConfiguration()
    c.headers = [("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")]
    // The client cannot inflate, so only the handshake is looked at.
    let ws = try await WebSocketConnection.connect(relay.url("/v1/source/pmd"), configuration: c)
    #expect(ws.upgradeResponse.header("Sec-WebSocket-Extensions")?.contains("permessage-deflate") == true)
    try await ws.drop()
  }

  @Test func compressionCanBeTurnedOff() async throws {
    let relay = try TestRelay { $0.compression = false }
    defer { relay.stop() }
    var c = WebSocketConfiguration()
    c.headers = [("Sec-WebSocket-Extensions", "permessage-deflate")]
    let ws = try await WebSocketConnection.connect(relay.url("/v1/source/plain"), configuration: c)
    #expect(ws.upgradeResponse.header("Sec-WebSocket-Extensions") == nil)
    try await ws.drop()
  }
}

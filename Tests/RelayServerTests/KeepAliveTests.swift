import Testing
import TouchRelayClient

/// The idle policy and the extensions offered at the upgrade.
@Suite struct KeepAliveTests {
  @Test func silentPeersArePingedAndHungUpOn() async throws {
    let relay = try TestRelay {
      $0.pingInterval = 1
      $0.idleTimeout = 2
    }
    defer { relay.stop() }
    var mute = WebSocketConfiguration()
    mute.autoPong = false
    let ws = try await WebSocketConnection.connect(relay.url("/v1/observe/idle"), configuration: mute)
    var sawPing = false
    var closed = false
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline && !closed {
      switch try? await ws.next(timeout: .seconds(1)) {
      case .ping?: sawPing = true
      case .close?: closed = true
      case nil: if !ws.isActive { closed = true }
      default: continue
      }
    }
    #expect(sawPing, "the server never pinged")
    #expect(closed, "a peer that never answered was not hung up on")
  }

  @Test func peersThatAnswerPingsStay() async throws {
    let relay = try TestRelay {
      $0.pingInterval = 1
      $0.idleTimeout = 2
    }
    defer { relay.stop() }
    let ws = try await WebSocketConnection.connect(relay.url("/v1/observe/alive"))
    let got = try await ws.receiveAll(for: .seconds(4))
    #expect(!got.contains { if case .close = $0 { return true } else { return false } })
    #expect(ws.isActive)
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

import Foundation
import NIOCore
import NIOWebSocket
import Testing
import TouchProtocol
import TouchRelayClient

/// Faults around a watched session: sources killed mid-gesture, TCP dropped without a close,
/// an observer stalled forever, another session flooded. The watched session loses nothing
/// and sees nothing reordered.
@Suite struct FaultTests {
  @Test func aWatchedSessionIsUnharmedByFaultsAround() async throws {
    let relay = try TestRelay { $0.drainTimeout = 0.5 }
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("watched", query: "raw=1")
    let (calm, calmID) = try await relay.source("watched")

    // Chaos on another session, running while the watched one streams.
    let chaos = Task { () async -> Result<Void, any Error> in
      do {
        let (stalled, _) = try await relay.observer("chaos", query: "raw=1")
        try await stalled.pauseReading()
        let (flooder, _) = try await relay.source("chaos")
        for round in 0..<6 {
          // A source killed mid-pinch, without a close frame.
          let (victim, _) = try await relay.source("chaos")
          try await victim.send(text: frameText(1, t: 0, [(1, "began", 10, 10), (2, "began", 50, 50)]))
          try await victim.send(text: frameText(2, t: 16, [(1, "moved", 5, 5), (2, "moved", 60, 60)]))
          try await victim.drop()
          // A flood far past the rate limit.
          try await flooder.send(
            texts: (0..<400).map { k in
              let seq = round * 400 + k + 1
              return frameText(seq, t: Double(seq), [(7, seq == 1 ? "began" : "moved", Double(k % 300), 1)])
            })
        }
        withExtendedLifetime(stalled) {}
      } catch {
        return .failure(error)
      }
      return .success(())
    }

    let total = 200
    var pacer = Pacer(every: .milliseconds(5))
    for seq in 1...total {
      let phase = seq == 1 ? "began" : "moved"
      try await calm.send(text: frameText(seq, t: Double(seq) * 8, [(1, phase, Double(seq % 400), 100)]))
      if seq % 20 == 0 { try await pacer.next() }
    }
    var next = 1
    while next <= total {
      let m = try await watcher.nextJSON(timeout: .seconds(20))
      switch m["type"]?.stringValue {
      case "touches":
        #expect(m["source"]?.stringValue == calmID)
        #expect(m["seq"]?.intValue == next, "expected seq \(next), got \(m.jsonString)")
        #expect(m["touches"]?[0]?["x"]?.doubleValue == Double(next % 400))
        next += 1
      case "dropped":
        Issue.record("the watched observer was told it missed \(m["count"]?.intValue ?? -1) messages")
        return
      default:
        continue
      }
    }
    try await chaos.value.get()
    #expect(try await relay.health()["status"]?.stringValue == "ok")
  }

  @Test func anObserverThatNeverReadsIsCutAtTheDrainDeadline() async throws {
    let relay = try TestRelay {
      $0.drainTimeout = 0.5
      $0.gestures = false
      $0.limits.maxFramesPerSecond = 1_000_000
      $0.limits.observerQueue = 64
    }
    // A small receive buffer: loopback's buffers grow to megabytes, enough to take every frame
    // below without the observer reading a byte, and then it would never have stalled.
    var small = WebSocketConfiguration()
    small.receiveBufferSize = 4096
    let (stalled, _) = try await relay.observer("stuck", query: "raw=1", configuration: small)
    try await stalled.pauseReading()
    let (src, _) = try await relay.source("stuck")
    let fingers = (0..<20).map { $0 }
    // About 11 MB of mirrored touches: well past what the server's send buffer (4 MB at most,
    // net.ipv4.tcp_wmem) and the observer's small receive buffer hold together.
    let total = 12_000
    try await src.send(
      texts: (1...total).map { seq in
        frameText(seq, t: Double(seq), fingers.map { ($0, seq == 1 ? "began" : "moved", 1.0, 2.0) })
      })
    // Stalled: far more was sent than its buffers hold, so its queue filled to its limit and
    // stays full (the count of what it lost is only known once it reads again).
    try await eventually("the observer stalls: /metrics shows its queue at its limit of 64") {
      let metrics = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text
      return (metricValue(metrics, "touchrelay_observer_queue_deepest") ?? 0) >= 64
    }
    let started = ContinuousClock.now
    await relay.stopAndWait()
    // The stop waits for the drain deadline, not for the observer.
    #expect(ContinuousClock.now - started < .seconds(5))
    // Cut: once it reads again it finds what its buffers held and then the connection's end
    // with no close frame (1006), since the 1001 that a drained observer gets comes after its
    // queue, which it never took; nor the last frame, which stayed in that queue.
    try await stalled.resumeReading()
    var lastTouches: String?
    var close: UInt16?
    while close == nil {
      let message = try await stalled.next(timeout: TestTime.seconds(10))
      switch message {
      case .close(let code, _): close = code
      case .text(let text) where text.contains(#""type":"touches""#): lastTouches = text
      default: continue
      }
    }
    let lastSeq = try lastTouches.map { try JSONValue.parse($0)["seq"]?.intValue ?? 0 } ?? 0
    #expect(close == 1006, "the stalled observer was not cut but closed with \(close ?? 0)")
    #expect(lastSeq < total, "the stalled observer got every frame: it never stalled")
  }
}

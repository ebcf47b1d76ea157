import Foundation
import NIOCore
import NIOWebSocket
import Testing
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
    for seq in 1...total {
      let phase = seq == 1 ? "began" : "moved"
      try await calm.send(text: frameText(seq, t: Double(seq) * 8, [(1, phase, Double(seq % 400), 100)]))
      if seq % 20 == 0 { try await Task.sleep(for: .milliseconds(5)) }
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
    }
    let (stalled, _) = try await relay.observer("stuck", query: "raw=1")
    try await stalled.pauseReading()
    let (src, _) = try await relay.source("stuck")
    let fingers = (0..<20).map { $0 }
    try await src.send(
      texts: (1...3000).map { seq in
        frameText(seq, t: Double(seq), fingers.map { ($0, seq == 1 ? "began" : "moved", 1.0, 2.0) })
      })
    try await Task.sleep(for: .milliseconds(300))
    let started = ContinuousClock.now
    await relay.stopAndWait()
    // The stop waits for the drain deadline, not for the observer.
    #expect(ContinuousClock.now - started < .seconds(5))
  }
}

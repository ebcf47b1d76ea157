import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// A peer that floods is read slowly (the rest of its messages wait in TCP: the driver's
/// `lws_rx_flow_control`), every frame it sent still ends up taken or reported, and other
/// sessions are served meanwhile. The pacing itself (when each message is read, controls and
/// text that is not JSON too) is the core's, at exact times in `FloodPacingTests`.
@Suite struct FloodTests {
  func metrics(_ relay: TestRelay) async throws -> String {
    try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text
  }

  /// Messages the server has read from all peers so far.
  func messagesRead(_ relay: TestRelay) async throws -> Double {
    metricValue(try await metrics(relay), "touchrelay_messages_in_total") ?? 0
  }

  /// Right after a burst sent at `sentAt`: a calm session's frame goes through; 250 ms on, the
  /// messages read since `before` came in at under `perSecond`, and a read pause was counted.
  /// A rate, not a count: on a machine slow enough (a sanitizer build among parallel tests)
  /// the server reads more slowly than the pauses would let it, and the round trip and the
  /// sleep take longer.
  func expectPaced(
    _ relay: TestRelay, since before: Double, sentAt: ContinuousClock.Instant, perSecond: Double,
    calm: WebSocketConnection, calmWatcher: WebSocketConnection
  ) async throws {
    try await calm.send(text: frameText(1, t: 1, [(1, "began", 5, 5)]))
    #expect(try await calmWatcher.nextJSON(type: "touches")["seq"]?.intValue == 1)
    try await Task.sleep(for: .milliseconds(250))
    let text = try await metrics(relay)
    let seconds = (ContinuousClock.now - sentAt) / .seconds(1)
    let read = (metricValue(text, "touchrelay_messages_in_total") ?? 0) - before
    #expect(read < perSecond * seconds, "\(read) messages read in the \(seconds) s after the burst")
    #expect((metricValue(text, "touchrelay_read_pauses_total") ?? 0) >= 1)
  }

  @Test func aFloodIsReadAtItsRateAndEveryFrameIsAccountedFor() async throws {
    let relay = try TestRelay { $0.limits.maxFramesPerSecond = 20 }
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("flood", query: "raw=1")
    let (src, _) = try await relay.source("flood")
    let (calmWatcher, _) = try await relay.observer("calm", query: "raw=1")
    let (calm, _) = try await relay.source("calm")

    // 600 frames in one flush, 30 times the bucket. Read at full speed, all of them would be
    // in within milliseconds; paused, the server takes about 23 per 100 ms window (the refill
    // and the refusals that trigger the next pause).
    let burst = 600
    let before = try await messagesRead(relay)
    let sentAt = ContinuousClock.now
    try await src.send(
      texts: (1...burst).map { seq in frameText(seq, t: Double(seq), [(1, seq == 1 ? "began" : "moved", 1, 1)]) })
    try await expectPaced(relay, since: before, sentAt: sentAt, perSecond: 1200, calm: calm, calmWatcher: calmWatcher)

    // Drain: the rest comes in window by window; then one more frame once the bucket has a
    // token brings the count of the last refusals.
    var mirrored = 0
    var reports = RateLimitedReports()
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      mirrored += try await watcher.touchesReceived(for: .milliseconds(300))
      try reports.add(try await src.receiveAll(for: .milliseconds(1)))
      // The burst and the calm frame read: the drain is over.
      if try await messagesRead(relay) - before >= Double(burst + 1) { break }
    }
    try await Task.sleep(for: .milliseconds(200))
    try await src.send(text: frameText(burst + 1, t: Double(burst + 1), [(1, "moved", 1, 1)]))
    try await accountForFrames(burst + 1, mirroredTo: watcher, reportedTo: src, mirrored: &mirrored, reports: &reports)
    let dropped = reports.dropped
    #expect(mirrored + dropped == burst + 1, "\(mirrored) mirrored + \(dropped) reported dropped")
    #expect(mirrored < burst / 5, "\(mirrored) mirrored")
  }
}

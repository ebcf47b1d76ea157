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

  /// Right after a burst of `burst` messages sent at `sentAt`: a calm session's frame goes
  /// through, and once a read pause is counted the messages read since `before` are well short
  /// of the burst (read at full speed, all of it would be in within milliseconds) or, on a
  /// machine slow enough to get there late (a sanitizer build among parallel tests), came in
  /// at under `perSecond`.
  func expectPaced(
    _ relay: TestRelay, since before: Double, sentAt: ContinuousClock.Instant, burst: Int, perSecond: Double,
    calm: WebSocketConnection, calmWatcher: WebSocketConnection
  ) async throws {
    try await calm.send(text: frameText(1, t: 1, [(1, "began", 5, 5)]))
    #expect(try await calmWatcher.nextJSON(type: "touches")["seq"]?.intValue == 1)
    var text = ""
    try await eventually("/metrics counts a read pause") {
      text = try await metrics(relay)
      return (metricValue(text, "touchrelay_read_pauses_total") ?? 0) >= 1
    }
    let seconds = (ContinuousClock.now - sentAt) / .seconds(1)
    let read = (metricValue(text, "touchrelay_messages_in_total") ?? 0) - before
    #expect(
      read < max(Double(burst) * 2 / 3, perSecond * seconds),
      "\(read) of \(burst) messages read in the \(seconds) s after the burst")
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
    try await expectPaced(
      relay, since: before, sentAt: sentAt, burst: burst, perSecond: 1200, calm: calm, calmWatcher: calmWatcher)

    // Drain: the rest comes in window by window; the count of the last refusals comes within
    // a window of them, the source being quiet by then.
    var mirrored = 0
    var reports = RateLimitedReports()
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      mirrored += try await watcher.touchesReceived(for: .milliseconds(300))
      try reports.add(try await src.receiveAll(for: .milliseconds(1)))
      // The burst and the calm frame read: the drain is over.
      if try await messagesRead(relay) - before >= Double(burst + 1) { break }
    }
    try await accountForFrames(burst, mirroredTo: watcher, reportedTo: src, mirrored: &mirrored, reports: &reports)
    let dropped = reports.dropped
    #expect(mirrored + dropped == burst, "\(mirrored) mirrored + \(dropped) reported dropped")
    #expect(mirrored < burst / 5, "\(mirrored) mirrored")
  }
}

import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// A peer that floods is read slowly (the rest of its messages wait in TCP), every message it
/// sent still ends up taken or reported, and other sessions are served meanwhile: frames far
/// over a source's rate and controls far over an observer's (one per token), and text that is
/// not JSON (about 100 per 100 ms, each answered).
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

  @Test func anObserverFloodingControlsChangesTheSceneAtMostAtTheControlRate() async throws {
    let relay = try TestRelay { $0.limits.maxControlsPerSecond = 10 }
    defer { relay.stop() }
    let hello = #"{"type":"hello","device":{"name":"p","width":400,"height":800},"scene":"flatcube"}"#
    _ = try await relay.source("ctl", hello: hello)
    let (bystander, _) = try await relay.observer("ctl")
    let (flooder, welcome) = try await relay.observer("ctl")
    #expect(welcome["limits"]?["maxControlsPerSecond"]?.intValue == 10)
    let (calmWatcher, _) = try await relay.observer("calm", query: "raw=1")
    let (calm, _) = try await relay.source("calm")
    let before = try await messagesRead(relay)

    // 400 controls in one flush, each toggling recognizeAny: every one that passes changes the
    // scene, which goes to every observer of the session.
    let burst = 400
    let sentAt = ContinuousClock.now
    try await flooder.send(texts: (0..<burst).map { i in #"{"type":"control","recognizeAny":\#(i % 2 == 0)}"# })
    // Paused, about 30 are read in the ~0.3 s this takes; unpaused, all 400 within milliseconds.
    try await expectPaced(relay, since: before, sentAt: sentAt, perSecond: 400, calm: calm, calmWatcher: calmWatcher)
    // The bucket's 10, then about one per 100 ms (room left for a slow machine); unlimited,
    // all 400 would change the scene.
    let got = try await bystander.receiveAll(for: .milliseconds(100))
    let scenes = got.filter { $0.text?.contains(#""type":"scene""#) == true }.count
    #expect(
      scenes >= 10 && scenes <= 30, "\(scenes) scene changes; got \(got.map { String(describing: $0).prefix(90) })")
    var reports = RateLimitedReports()
    try reports.add(try await flooder.receiveAll(for: .milliseconds(200)))
    let (errors, dropped) = (reports.errors, reports.dropped)
    #expect(errors >= 2 && dropped >= 11, "\(errors) rate_limited errors, \(dropped) controls dropped")
    #expect(try await relay.health()["observers"]?.intValue == 3)
  }

  @Test func aPeerSendingGarbageIsReadAboutAThousandMessagesASecondAndToldOfEach() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (junk, _) = try await relay.source("junk")
    let (calmWatcher, _) = try await relay.observer("calm", query: "raw=1")
    let (calm, _) = try await relay.source("calm")
    let before = try await messagesRead(relay)

    // 3,000 messages that are not JSON, in one flush: each gets its `bad_json` error, but past
    // 100 errors in 100 ms the server stops reading the peer for the rest of the window.
    let burst = 3000
    let sentAt = ContinuousClock.now
    try await junk.send(texts: Array(repeating: "nope", count: burst))
    try await expectPaced(relay, since: before, sentAt: sentAt, perSecond: 4000, calm: calm, calmWatcher: calmWatcher)

    // All of it is read in the end, and every message is answered: an error each, or counted
    // in a `dropped` notice if the errors outran the peer's queue.
    var errors = 0
    var dropped = 0
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      for m in try await junk.receiveAll(for: .milliseconds(300)) {
        guard let text = m.text else { continue }
        if text.contains("bad_json") { errors += 1 }
        if text.contains(#""type":"dropped""#) { dropped += try JSONValue.parse(text)["count"]?.intValue ?? 0 }
      }
      if errors + dropped >= burst { break }
    }
    #expect(errors + dropped == burst, "\(errors) errors + \(dropped) dropped")
    #expect(try await messagesRead(relay) - before == Double(burst + 1))
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

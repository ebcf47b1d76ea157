import Foundation
import NIOCore
import NIOWebSocket
import Testing
import TouchProtocol
import TouchRelayClient

/// A source sending far over its frame rate is read no faster than about twice that rate (its
/// frames wait in TCP), every frame it sent still ends up mirrored or reported dropped, and
/// other sessions are served meanwhile.
@Suite struct FloodTests {
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
    let metrics = "http://127.0.0.1:\(relay.port)/metrics"
    func messagesRead() async throws -> Double {
      metricValue(try await HTTPClient.get(metrics).text, "touchrelay_messages_in_total") ?? 0
    }
    let before = try await messagesRead()
    let frames = (1...burst).map { seq in
      WebSocketFrame(
        fin: true, opcode: .text,
        data: ByteBuffer(string: frameText(seq, t: Double(seq), [(1, seq == 1 ? "began" : "moved", 1, 1)])))
    }
    try await src.send(frames: frames)
    try await calm.send(text: frameText(1, t: 1, [(1, "began", 5, 5)]))
    let calmTouches = try await calmWatcher.nextJSON(type: "touches")
    #expect(calmTouches["seq"]?.intValue == 1)

    try await Task.sleep(for: .milliseconds(250))
    let early = try await HTTPClient.get(metrics).text
    let readEarly = (metricValue(early, "touchrelay_messages_in_total") ?? 0) - before
    #expect(readEarly < Double(burst) / 2, "\(readEarly) messages read 250 ms after the burst")
    #expect((metricValue(early, "touchrelay_source_read_pauses_total") ?? 0) >= 1)

    // Drain: the rest comes in window by window; then one more frame once the bucket has a
    // token brings the count of the last refusals.
    var mirrored = 0
    var dropped = 0
    func count(_ messages: [Received]) throws {
      for m in messages {
        guard let text = m.text, text.contains("rate_limited") else { continue }
        let said = try JSONValue.parse(text)["message"]?.stringValue ?? ""
        if let n = said.split(separator: ";").last?.split(separator: " ").first.flatMap({ Int($0) }) { dropped += n }
      }
    }
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      mirrored += try await watcher.receiveAll(for: .milliseconds(300)).filter {
        $0.text?.contains(#""type":"touches""#) == true
      }.count
      try count(try await src.receiveAll(for: .milliseconds(1)))
      // The burst and the calm frame read: the drain is over.
      if try await messagesRead() - before >= Double(burst + 1) { break }
    }
    try await Task.sleep(for: .milliseconds(200))
    try await src.send(text: frameText(burst + 1, t: Double(burst + 1), [(1, "moved", 1, 1)]))
    try count(try await src.receiveAll(for: .milliseconds(400)))
    mirrored += try await watcher.receiveAll(for: .milliseconds(300)).filter {
      $0.text?.contains(#""type":"touches""#) == true
    }.count
    #expect(mirrored + dropped == burst + 1, "\(mirrored) mirrored + \(dropped) reported dropped")
    #expect(mirrored < burst / 5, "\(mirrored) mirrored")
  }
}

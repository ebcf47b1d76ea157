import Foundation
import RelayServer
import Testing
import TouchRelayClient

/// `--record` then `--replay`: the replay prints exactly what observers got live.
@Suite struct RecordReplayTests {
  @Test func replayingARecordingGivesWhatObserversGotLive() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touch-relay-rec-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let relay = try TestRelay { $0.recordDirectory = dir.path }
    defer { relay.stop() }

    let (watcher, _) = try await relay.observer("rec", query: "raw=1")
    let (phone, _) = try await relay.source(
      "rec", hello: #"{"type":"hello","device":{"name":"p","width":400,"height":800},"scene":"zoom"}"#)
    // A double tap (zoom in), a long press held past its timer, a pan, a bad message.
    let script: [(Int, String, Double, Double, Double)] = [
      (1, "began", 100, 100, 0), (1, "ended", 100, 100, 60), (2, "began", 103, 101, 150), (2, "ended", 103, 101, 210),
      (3, "began", 200, 400, 1000),
    ]
    // One flush: the server reads the whole script at once, so a loaded machine cannot let the
    // single-tap timer fire between the two taps.
    var seq = 0
    var frames: [String] = []
    for (id, phase, x, y, t) in script {
      seq += 1
      frames.append(frameText(seq, t: t, [(id, phase, x, y)]))
    }
    try await phone.send(texts: frames)
    // The long press timer fires live, with the finger still down.
    var live: [String] = []
    while !(live.last?.contains(#""gesture":"longpress""#) ?? false) {
      guard let text = try await watcher.next(timeout: TestTime.seconds(5)).text else { continue }
      live.append(text)
    }
    for step in 1...5 {
      seq += 1
      try await phone.send(
        text: frameText(seq, t: 1700 + Double(step) * 16, [(3, "moved", 200 + Double(step) * 20, 400)]))
    }
    try await phone.send(text: "not json")
    seq += 1
    try await phone.send(text: frameText(seq, t: 1800, [(3, "ended", 300, 400)]))
    await phone.close()

    while true {
      let m = try await watcher.next(timeout: TestTime.seconds(2))
      guard let text = m.text else { continue }
      live.append(text)
      if text.contains(#""event":"left""#) { break }
    }
    #expect(live.contains { $0.contains(#""gesture":"longpress""#) }, "the script should have made a long press")
    #expect(live.contains { $0.contains(#""taps":2"#) }, "the script should have made a double tap")

    let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".jsonl") }
    #expect(files.count == 1)
    let recording = try String(contentsOf: dir.appendingPathComponent(try #require(files.first)), encoding: .utf8)
    let replayed = try RecordingReplay.replay(recording)
    #expect(replayed == live)
  }

  @Test func aFileThatIsNotARecordingIsAClearError() {
    #expect(throws: RecordingReplay.Failure.self) { try RecordingReplay.replay("{\"hello\":1}\n") }
    #expect(throws: RecordingReplay.Failure.self) { try RecordingReplay.replay("") }
  }
}

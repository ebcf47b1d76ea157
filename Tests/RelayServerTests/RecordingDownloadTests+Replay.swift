import Foundation
import RelayServer
import Testing
import TouchProtocol
import TouchRelayClient

/// `/replay/{session}/{file}` (the page that plays a recording) and the recording
/// `?as=observed` it plays: refused as the download is, and what it plays is what the
/// session's observers got live. The download's suite, its server and requests.
extension RecordingDownloadTests {
  /// The `message` of one `?as=observed` line, as the bytes it was sent with.
  func message(ofLine line: Substring) throws -> String {
    let head = #","message":"#
    let start = try #require(line.range(of: head)).upperBound
    #expect(line.hasSuffix("}"))
    return String(line[start..<line.index(before: line.endIndex)])
  }

  @Test func theReplayPageIsRefusedAsTheDownloadAndPlaysWhatObserversGot() async throws {
    let (relay, dir) = try recordingRelay(token: "peek")
    defer {
      relay.stop()
      try? FileManager.default.removeItem(at: dir)
    }
    let (watcher, _) = try await relay.observer("rp", query: "raw=1&token=peek")
    let (phone, _) = try await relay.source("rp")
    // A tap (told after the double-tap wait, by the server's timer) and a short pan.
    var frames = [frameText(1, t: 10, [(1, "began", 100, 100)]), frameText(2, t: 70, [(1, "ended", 100, 100)])]
    try await phone.send(texts: frames)
    var live: [String] = []
    while !(live.last?.contains(#""gesture":"tap""#) ?? false) {
      guard let text = try await watcher.next(timeout: TestTime.seconds(5)).text else { continue }
      live.append(text)
    }
    frames = [frameText(3, t: 1000, [(2, "began", 200, 300)])]
    for step in 1...8 { frames.append(frameText(3 + step, t: 1000 + Double(step) * 16, [(2, "moved", 200 + Double(step) * 15, 300)])) }
    frames.append(frameText(12, t: 1200, [(2, "ended", 320, 300)]))
    try await phone.send(texts: frames)
    await phone.close()
    while true {
      guard let text = try await watcher.next(timeout: TestTime.seconds(5)).text else { continue }
      live.append(text)
      if text.contains(#""event":"left""#) { break }
    }
    #expect(live.contains { $0.contains(#""gesture":"pan""#) }, "the script should have made a pan")

    let list = try JSONValue.parse(try await get(relay, "/recordings/rp?token=peek").text)
    let name = try #require(list["recordings"]?.arrayValue?.first?["name"]?.stringValue)
    let page = "/replay/rp/\(name)"
    let download = "/recordings/rp/\(name)"

    // Refused exactly as the download is, token by token.
    let asked: [(String, [(String, String)])] = [
      ("", []), ("?token=nope", []), ("", [("Authorization", "Bearer nope")]), ("?token=peek", []),
      ("", [("Authorization", "Bearer peek")]),
    ]
    for (query, headers) in asked {
      let replay = try await get(relay, page + query, headers: headers)
      let file = try await get(relay, download + query, headers: headers)
      #expect(replay.status == file.status, "\(query) \(headers): the page \(replay.status), the file \(file.status)")
      #expect(replay.text == file.text || file.status == 200)
    }
    #expect(try await get(relay, page).status == 401)
    #expect(try await get(relay, page + "?token=nope").status == 403)

    let served = try await get(relay, page + "?token=peek")
    #expect(served.status == 200)
    #expect(served.headers.contains { $0.0.lowercased() == "content-type" && $0.1.hasPrefix("text/html") })
    #expect(served.text.contains(#"src="/static/replay.js""#), "the page is the replay page")
    let script = try await get(relay, "/static/replay.js")
    #expect(script.status == 200 && script.text.contains("as=observed"))

    // A recording that is not there, or of another session, or a name of no recording: 404.
    for path in ["/replay/rp/rp-999.jsonl", "/replay/other/\(name)", "/replay/rp/x.jsonl", "/replay/rp", "/replay/rp/\(name)/x"] {
      #expect(try await get(relay, path + "?token=peek").status == 404, "\(path)")
    }
    #expect(try await get(relay, "/replay/bad%20name/x.jsonl?token=peek").status == 400)

    // ?as=observed: the same refusals, then what the observer got live, each with a server time.
    #expect(try await get(relay, download + "?as=observed").status == 401)
    #expect(try await get(relay, download + "?as=observed&token=nope").status == 403)
    #expect(try await get(relay, download + "?as=other&token=peek").status == 400)
    let observed = try await get(relay, download + "?as=observed&token=peek")
    #expect(observed.status == 200)
    #expect(observed.headers.contains { $0.0.lowercased() == "content-type" && $0.1.hasPrefix("application/x-ndjson") })
    let lines = observed.text.split(separator: "\n")
    #expect(try lines.map { try message(ofLine: $0) } == live, "byte for byte what the observer got")
    let times = try lines.map { try #require(JSONValue.parse(String($0))["rt"]?.doubleValue) }
    #expect(times == times.sorted(), "in the order sent, on the server's clock")
    let recording = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
    let header = try JSONValue.parse(String(try #require(recording.split(separator: "\n").first)))
    let start = try #require(header["rt"]?.doubleValue)
    #expect(times.allSatisfy { $0 >= start })
    // The tap is told on the server's timer, a double-tap wait after the finger lifted: its
    // time is the timer's, not the frame's.
    let recordTimes = recording.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) }
    let lifted = try #require(recordTimes.first { $0["in"]?.stringValue?.contains(#""ended""#) == true }?["rt"]?.doubleValue)
    let tapIndex = try #require(live.firstIndex { $0.contains(#""gesture":"tap""#) })
    #expect(times[tapIndex] >= lifted + 200, "the tap at \(times[tapIndex]), the finger lifted at \(lifted)")
  }

  @Test func observedRefusesWhatItCannotReplayWithAReason() async throws {
    let (relay, dir) = try recordingRelay(token: nil)
    defer {
      relay.stop()
      try? FileManager.default.removeItem(at: dir)
    }
    try Data("{\"hello\":1}\n".utf8).write(to: dir.appendingPathComponent("x-1.jsonl"))
    let notARecording = try await get(relay, "/recordings/x/x-1.jsonl?as=observed")
    #expect(notARecording.status == 422)
    #expect(notARecording.text.contains("not a touch-relay recording"))
    #expect(try await get(relay, "/recordings/x/x-1.jsonl").status == 200, "the download serves it as it is")

    // Larger than ?as=observed replays: refused before anything is read or replayed.
    let big = dir.appendingPathComponent("x-2.jsonl")
    try Data().write(to: big)
    let handle = try FileHandle(forWritingTo: big)
    try handle.truncate(atOffset: UInt64((2 << 20) + 1))
    try handle.close()
    let tooLarge = try await get(relay, "/recordings/x/x-2.jsonl?as=observed")
    #expect(tooLarge.status == 413)
    #expect(tooLarge.text.contains("at most \(2 << 20) bytes") && tooLarge.text.contains("touch-relay --replay"))
    #expect(try await get(relay, "/replay/x/x-2.jsonl").status == 200, "its page is served, and says why it cannot play")
  }
}

import Foundation
import RelayServer
import Testing
import TouchProtocol
import TouchRelayClient

/// `/recordings/{session}`: the watch page's "download recording", as observers are admitted.
@Suite struct RecordingDownloadTests {
  /// A server recording into a fresh directory, observers needing `token`.
  func recordingRelay(token: String?) throws -> (TestRelay, URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touch-relay-dl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let relay = try TestRelay {
      $0.recordDirectory = dir.path
      $0.observerToken = token
    }
    return (relay, dir)
  }

  func get(_ relay: TestRelay, _ path: String, headers: [(String, String)] = []) async throws -> HTTPResponse {
    try await HTTPClient.get("http://127.0.0.1:\(relay.port)\(path)", headers: headers)
  }

  @Test func aSessionsRecordingIsListedAndServedWithTheObserverToken() async throws {
    let (relay, dir) = try recordingRelay(token: "peek")
    defer {
      relay.stop()
      try? FileManager.default.removeItem(at: dir)
    }
    let (phone, _) = try await relay.source("dl")
    try await phone.send(text: #"{"type":"frame","seq":1,"t":10,"touches":[{"id":1,"phase":"began","x":5,"y":6}]}"#)
    await phone.close()
    // The close is recorded once the server has seen it: wait for the session to empty.
    try await eventually("/healthz counts no source once the phone has closed") {
      try await relay.health()["sources"]?.intValue == 0
    }

    #expect(try await get(relay, "/recordings/dl").status == 401)
    #expect(try await get(relay, "/recordings/dl?token=nope").status == 403)
    let listed = try await get(relay, "/recordings/dl?token=peek")
    #expect(listed.status == 200)
    let list = try JSONValue.parse(listed.text)
    #expect(list["recording"]?.boolValue == true)
    let entries = try #require(list["recordings"]?.arrayValue)
    #expect(entries.count == 1)
    let name = try #require(entries.first?["name"]?.stringValue)
    let url = try #require(entries.first?["url"]?.stringValue)
    let onDisk = try Data(contentsOf: dir.appendingPathComponent(name))
    #expect(entries.first?["bytes"]?.intValue == onDisk.count)

    #expect(try await get(relay, url).status == 401, "the file needs the token as the list does")
    let file = try await get(relay, url, headers: [("Authorization", "Bearer peek")])
    #expect(file.status == 200)
    #expect(file.body == Array(onDisk))
    #expect(file.text.contains(#"\"type\":\"frame\""#), "the download is the recording, the frame in it")
    #expect(file.headers.contains { $0.0.lowercased() == "content-disposition" && $0.1.contains(name) })
  }

  @Test func onlyTheSessionsOwnRecordingNamesAreServed() async throws {
    let (relay, dir) = try recordingRelay(token: nil)
    defer {
      relay.stop()
      try? FileManager.default.removeItem(at: dir)
    }
    // Files in the directory that are not a recording of session "a": another session's, a
    // name that only starts like one, a link out of the directory.
    try Data("{}\n".utf8).write(to: dir.appendingPathComponent("a-b-1.jsonl"))
    try Data("{}\n".utf8).write(to: dir.appendingPathComponent("a-1.jsonl.bak"))
    try Data("{}\n".utf8).write(to: dir.appendingPathComponent("a-2.jsonl"))
    try FileManager.default.createSymbolicLink(
      atPath: dir.appendingPathComponent("a-3.jsonl").path, withDestinationPath: "/etc/passwd")

    let list = try JSONValue.parse(try await get(relay, "/recordings/a").text)
    #expect(list["recordings"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["a-2.jsonl"])
    #expect(try await get(relay, "/recordings/a/a-2.jsonl").status == 200)
    for path in [
      "/recordings/a/a-b-1.jsonl", "/recordings/a/a-1.jsonl.bak", "/recordings/a/a-3.jsonl", "/recordings/a/a-.jsonl",
      "/recordings/a/a-2.jsonl/x", "/recordings/a/..%2F..%2Fetc%2Fpasswd", "/recordings/a/a-+2.jsonl",
    ] {
      let status = try await get(relay, path).status
      #expect(status == 404 || status == 400, "\(path) answered \(status)")
    }
    #expect(try await get(relay, "/recordings/a-b/a-b-1.jsonl").status == 200, "session a-b's own file is served")
  }

  /// The watch page asks for the list on every source notice: a server that does not record
  /// answers it, saying so, rather than with a 404 the browser logs as a failed request.
  @Test func withoutRecordingTheListSaysSoAndIsEmpty() async throws {
    let relay = try TestRelay { $0.observerToken = "peek" }
    defer { relay.stop() }
    #expect(try await get(relay, "/recordings/any").status == 401, "admitted as an observer, as with --record")
    let listed = try await get(relay, "/recordings/any?token=peek")
    #expect(listed.status == 200)
    #expect(listed.headers.contains { $0.0.lowercased() == "content-type" && $0.1.hasPrefix("application/json") })
    let list = try JSONValue.parse(listed.text)
    #expect(list["session"]?.stringValue == "any")
    #expect(list["recording"]?.boolValue == false)
    #expect(list["recordings"]?.arrayValue?.isEmpty == true)
    #expect(try await get(relay, "/recordings/any/any-1.jsonl?token=peek").status == 404)
  }
}

import Foundation
import RelayServer
import Testing
import TouchRelayClient

/// `--log-format json` (`TOUCH_RELAY_LOG_FORMAT`): what a log shipper reads from a real
/// `touch-relay`, compared with the text format of the same run.
@Suite struct LogFormatTests {
  /// What one run wrote: its standard output and standard error, line by line.
  struct Output {
    var stdout: [String]
    var stderr: [String]
    var all: [String] { stdout + stderr }
  }

  /// `touch-relay --log-format FORMAT --log-level LEVEL`, gestures off (so no timer adds a line
  /// or a message): an observer (raw) and a source connect, one frame, the source closes and
  /// then the observer; then SIGTERM. Everything it wrote, once it exited.
  static func run(format: String, level: String) async throws -> Output {
    let errors = ChildProcess.pipe()
    let (p, line, out) = try await ShutdownTests.launchForLine(
      ["--log-format", format, "--log-level", level, "--node-id", "log-format-test", "--no-gestures"],
      errors: errors)
    let port = try #require(ShutdownTests.url(in: line).split(separator: ":").last.flatMap { Int($0) }, "\(line)")
    do {
      let base = "ws://127.0.0.1:\(port)"
      let observer = try await WebSocketConnection.connect(base + "/v1/observe/logs?raw=1")
      _ = try await observer.nextJSON(type: "welcome")
      let source = try await WebSocketConnection.connect(base + "/v1/source/logs")
      try await source.send(text: #"{"type":"hello","device":{"name":"Log phone","width":400,"height":800}}"#)
      _ = try await source.nextJSON(type: "welcome")
      try await source.send(text: frameText(1, t: 0, [(1, "began", 10, 20)]))
      _ = try await observer.nextJSON(type: "touches")
      await source.close()
      // The relay logs a close before it tells observers the source left.
      while try await observer.nextJSON(type: "source")["event"]?.stringValue != "left" {}
      await observer.close()
    } catch {
      terminate(p)
      throw error
    }
    terminate(p)
    #expect(p.terminationStatus == 0)
    let (stdout, stderr) = try await onOwnThread {
      (
        out.fileHandleForReading.readDataToEndOfFile(), errors.fileHandleForReading.readDataToEndOfFile()
      )
    }
    // The start-up line was read by launchForLine: it is the first line of standard output.
    func lines(_ data: Data) -> [String] {
      String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        .filter { !$0.isEmpty }
    }
    return Output(stdout: lines(Data(line.utf8) + stdout), stderr: lines(stderr))
  }

  /// One text line, `TIME LEVEL LABEL: name=value ... [MODULE] MESSAGE`, taken apart.
  static func textLine(_ line: String) -> (level: String, label: String, fields: [String: String], message: String)? {
    let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    guard words.count >= 4, words[2].hasSuffix(":") else { return nil }
    var fields: [String: String] = [:]
    var i = 3
    while i < words.count, !words[i].hasPrefix("[") {
      guard let eq = words[i].firstIndex(of: "=") else { return nil }
      fields[String(words[i][..<eq])] = String(words[i][words[i].index(after: eq)...])
      i += 1
    }
    guard i + 1 < words.count else { return nil }
    return (words[1], String(words[2].dropLast()), fields, words[(i + 1)...].joined(separator: " "))
  }

  static let fixedKeys: Set<String> = ["time", "level", "message", "logger", "source"]

  @Test func everyLineIsOneJSONObjectWithTheTextFormatsFields() async throws {
    // At debug, libwebsockets' own notices are logged too: they must be JSON lines as well.
    let json = try await Self.run(format: "json", level: "debug")
    let text = try await Self.run(format: "text", level: "info")

    // Every line, on both streams, is one JSON object with a time, a level and a message.
    var objects: [[String: Any]] = []
    let rfc3339 = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/#
    for line in json.all {
      let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8))
      let object = try #require(parsed as? [String: Any], "not a JSON object: \(line)")
      let time = try #require(object["time"] as? String, "\(line)")
      #expect(time.wholeMatch(of: rfc3339) != nil, "\(line)")
      #expect(["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(object["level"] as? String))
      #expect(object["message"] is String, "\(line)")
      objects.append(object)
    }
    // The start-up line keeps its words (scripts read the URL from it) and names its parts.
    let startUp = try #require(objects.first)
    let url = try #require(startUp["url"] as? String)
    #expect((startUp["message"] as? String)?.contains(" listening on \(url) ") == true, "\(startUp)")
    #expect(objects.contains { $0["message"] as? String == "stopped" }, "\(json.all)")
    #expect(objects.contains { $0["logger"] as? String == "libwebsockets" }, "\(json.all)")

    // The connection lines carry the same fields, with the same values, as in the text format.
    func jsonFields(_ o: [String: Any]) -> [String: String] {
      var fields: [String: String] = [:]
      for (key, value) in o where !Self.fixedKeys.contains(key) { fields[key] = value as? String ?? "\(value)" }
      return fields
    }
    let connectionLines = ["connection open", "connection closed"]
    let fromJSON = objects.filter { connectionLines.contains($0["message"] as? String ?? "") }
    let fromText = text.stderr.compactMap(Self.textLine).filter { connectionLines.contains($0.message) }
    #expect(fromJSON.count == 4, "\(json.stderr)")
    #expect(fromText.count == 4, "\(text.stderr)")
    for (j, t) in zip(fromJSON, fromText) {
      #expect(j["message"] as? String == t.message)
      #expect(j["level"] as? String == t.level)
      #expect(j["logger"] as? String == t.label)
      #expect(jsonFields(j) == t.fields, "json \(j)\ntext \(t)")
    }
    #expect(fromText.first?.fields["node"] == "log-format-test")
    #expect(fromText.last?.fields["peerClose"] == "1000")
    // The text format stays as it was: nothing on either stream of a text run is JSON.
    #expect(!text.all.contains { $0.hasPrefix("{") }, "\(text.all)")
  }

  @Test func aWrongFormatIsRefusedNamingTheChoices() async throws {
    let (status, said) = try await runTool(ShutdownTests.binary.path, ["--log-format", "xml"])
    #expect(status != 0)
    #expect(said.contains("--log-format='xml' is not a valid value (one of text, json)"), "\(said)")
    let (envStatus, envSaid) = try await runTool(
      ShutdownTests.binary.path, [], environment: ["TOUCH_RELAY_LOG_FORMAT": "JSON"])
    #expect(envStatus != 0)
    #expect(envSaid.contains("TOUCH_RELAY_LOG_FORMAT='JSON' is not a valid value (one of text, json)"), "\(envSaid)")
  }

  /// A field named like a key every line has is renamed, so no key appears twice; strings
  /// that need escaping stay one line.
  @Test func aFieldNamedLikeAFixedKeyIsRenamed() throws {
    let line = JSONLogHandler.line(
      time: "2026-01-02T03:04:05.678Z", level: "info", message: "two\nlines \"quoted\"", logger: "touch-relay",
      source: "RelayServer", fields: ["message": "mine", "path": "/v1/source/a", "bell": "\u{7}"])
    #expect(line.hasSuffix("}\n") && line.dropLast().firstIndex(of: "\n") == nil, "\(line)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
    #expect(object["message"] == "two\nlines \"quoted\"")
    #expect(object["field.message"] == "mine")
    #expect(object["path"] == "/v1/source/a")
    #expect(object["bell"] == "\u{7}")
    #expect(line.components(separatedBy: "\"message\":").count == 2, "\(line)")
  }
}

import Foundation
import Testing
import TouchRelayClient

#if canImport(Glibc)
  import Glibc
#endif

/// `/metrics` in Prometheus text format, with what an operator graphs.
@Suite struct MetricsTests {
  func value(_ text: String, _ series: String) -> Double? { metricValue(text, series) }

  @Test func countsConnectionsFramesErrorsAndLatency() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("m", query: "raw=1")
    let (src, _) = try await relay.source("m")
    for seq in 1...20 {
      try await src.send(text: frameText(seq, t: Double(seq) * 10, [(1, seq == 1 ? "began" : "moved", 1, 1)]))
    }
    try await src.send(text: "nope")
    _ = try await src.nextJSON(type: "error")
    for _ in 1...20 { _ = try await watcher.nextJSON(type: "touches") }

    let r = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics")
    #expect(r.status == 200)
    #expect(r.header("Content-Type")?.hasPrefix("text/plain") == true)
    let text = r.text
    #expect(value(text, #"touchrelay_connections{role="source"}"#) == 1)
    #expect(value(text, #"touchrelay_connections{role="observer"}"#) == 1)
    #expect(value(text, "touchrelay_sessions") == 1)
    #expect(value(text, "touchrelay_frames_in_total") == 20)
    #expect(value(text, #"touchrelay_errors_total{code="bad_json"}"#) == 1)
    #expect((value(text, "touchrelay_messages_out_total") ?? 0) >= 22)
    #expect((value(text, "touchrelay_delivery_latency_seconds_count") ?? 0) >= 22)
    // One frame in 16 is timed: the 1st and the 17th.
    #expect(value(text, "touchrelay_engine_duration_seconds_count") == 2)
    #expect((value(text, "touchrelay_engine_duration_seconds_sum") ?? 0) > 0)
    #expect(text.contains("# TYPE touchrelay_delivery_latency_seconds histogram"))
  }

  /// Without gestures no engine runs: frames are counted, no engine time is recorded.
  @Test func noEngineTimeWithoutGestures() async throws {
    let relay = try TestRelay { $0.gestures = false }
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("m", query: "raw=1")
    let (src, _) = try await relay.source("m")
    for seq in 1...20 {
      try await src.send(text: frameText(seq, t: Double(seq) * 10, [(1, seq == 1 ? "began" : "moved", 1, 1)]))
    }
    for _ in 1...20 { _ = try await watcher.nextJSON(type: "touches") }
    let text = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text
    #expect(value(text, "touchrelay_frames_in_total") == 20)
    #expect((value(text, "touchrelay_engine_duration_seconds_count") ?? 0) == 0)
  }

  /// Each limit an operator sets is on `/metrics`, so that an alert divides by the node's own.
  @Test func exportsTheLimitsItRunsWith() async throws {
    let relay = try TestRelay {
      $0.limits.maxConnections = 123
      $0.limits.maxConnectionsPerAddress = 45
      $0.limits.maxSessions = 67
      $0.limits.maxObserversPerSession = 89
      $0.limits.observerQueue = 10
    }
    defer { relay.stop() }
    let text = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text
    #expect(value(text, #"touchrelay_limit{limit="max_connections"}"#) == 123)
    #expect(value(text, #"touchrelay_limit{limit="max_connections_per_address"}"#) == 45)
    #expect(value(text, #"touchrelay_limit{limit="max_sessions"}"#) == 67)
    #expect(value(text, #"touchrelay_limit{limit="max_observers_per_session"}"#) == 89)
    #expect(value(text, #"touchrelay_limit{limit="observer_queue"}"#) == 10)
    #expect(text.contains("# TYPE touchrelay_limit gauge"))
  }

  /// The error codes and close codes of protocol/README.md, section 3 (its table's second
  /// column: `code`, close `NNNN`), with 1000 (section 4) and "none" (no close frame).
  static func documentedCodes() throws -> (errors: Set<String>, closes: Set<String>) {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("protocol/README.md")
    let text = try String(contentsOf: url, encoding: .utf8)
    let start = try #require(text.range(of: "\n## 3. Errors\n"))
    let rest = text[start.upperBound...]
    let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
    var errors = Set<String>()
    var closes: Set<String> = ["1000", "none"]
    // The rows after the header; only the codes a cell begins with (a cell names fields too).
    for row in section.split(separator: "\n") where row.hasPrefix("| ") && !row.hasPrefix("| condition |") {
      let cells = row.split(separator: "|", omittingEmptySubsequences: false)
      guard cells.count > 3 else { continue }
      let cell = String(cells[2]).replacing(/reason `[^`]*`/, with: "")
      for m in cell.matches(of: /close `(\d+)`/) { closes.insert(String(m.1)) }
      if let m = cell.prefixMatch(of: /\s*`([a-z_]+)`(?:\s*\/\s*`([a-z_]+)`)?/) {
        errors.insert(String(m.1))
        if let other = m.2 { errors.insert(String(other)) }
      }
    }
    return (errors, closes)
  }

  /// Every documented code has its series from the start, at 0, so that the first error of a
  /// code is an increase (a series that appears with its first event is invisible to rate()).
  @Test func everyDocumentedCodeIsExportedAtZeroFromTheStart() async throws {
    let (errors, closes) = try Self.documentedCodes()
    #expect(errors.count >= 20 && errors.contains("rate_limited") && closes.contains("4001"), "\(errors) \(closes)")
    let relay = try TestRelay()
    defer { relay.stop() }
    let before = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text
    for code in errors.sorted() {
      #expect(value(before, #"touchrelay_errors_total{code="\#(code)"}"#) == 0, "\(code)")
    }
    for code in closes.sorted() {
      #expect(value(before, #"touchrelay_closes_total{code="\#(code)"}"#) == 0, "\(code)")
    }
    let (src, _) = try await relay.source("zero")
    try await src.send(text: "nope")
    _ = try await src.nextJSON(type: "error")
    let after = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text
    #expect(value(after, #"touchrelay_errors_total{code="bad_json"}"#) == 1)
    #expect(value(after, #"touchrelay_errors_total{code="no_hello"}"#) == 0)
  }

  /// A cluster node exports every reason a bus message is malformed at 0 once on the bus, and
  /// counts a message on the nodes' channel that no node made.
  @Test func everyMalformedReasonIsExportedAtZeroOnTheBus() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let node = try await TestNode("M", redis: redis)
    defer { withExtendedLifetime(node) {} }
    #expect(try await node.waitForBus(up: true))
    let reasons = [
      "bad_magic", "truncated", "bad_kind", "bad_name", "too_large", "bad_json", "trailing_bytes", "out_of_range",
    ]
    let before = try await node.metrics()
    for why in reasons {
      #expect(value(before, #"touchrelay_bus_malformed_total{why="\#(why)"}"#) == 0, "\(why): \(before)")
    }
    #expect(try await redis.cli(["PUBLISH", "test:nodes", "not a node's message"]) == "1")
    var after = ""
    try await eventually(#"/metrics counts the message in touchrelay_bus_malformed_total{why="bad_magic"}"#) {
      after = try await node.metrics()
      return value(after, #"touchrelay_bus_malformed_total{why="bad_magic"}"#) == 1
    }
    let total = reasons.compactMap { value(after, #"touchrelay_bus_malformed_total{why="\#($0)"}"#) }.reduce(0, +)
    #expect(total == 1)
  }

  /// The process metrics of a real `touch-relay` process: when it started, its descriptors
  /// (one more per connection; the limit it runs with), its memory and its CPU time.
  @Test func exportsTheProcessMetrics() async throws {
    let launched = Date().timeIntervalSince1970
    let relay = try await RelayProcess([])
    defer { relay.stop() }
    let started = Date().timeIntervalSince1970
    let metrics = { try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text }
    let before = try await metrics()
    let start = try #require(value(before, "process_start_time_seconds"))
    // /proc gives the start in clock ticks (1/100 s).
    #expect(start >= launched - 0.02 && start <= started + 0.02, "\(launched) <= \(start) <= \(started)")
    var limit = rlimit()
    #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
    #expect(value(before, "process_max_fds") == Double(limit.rlim_cur), "inherited from this process")
    let open = try #require(value(before, "process_open_fds"))
    // What `ls /proc/PID/fd` shows, with the scrape's own connection (and perhaps the one
    // before it, still closing).
    let listed = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(relay.process.processIdentifier)/fd").count
    #expect(open >= Double(listed) && open <= Double(listed + 2), "\(open) open, \(listed) listed")
    #expect((value(before, "process_resident_memory_bytes") ?? 0) > 1_000_000)
    #expect((value(before, "process_cpu_seconds_total") ?? 0) > 0)
    var observers: [WebSocketConnection] = []
    for _ in 1...5 {
      let ws = try await WebSocketConnection.connect(relay.url("/v1/observe/fds"))
      _ = try await ws.nextJSON(type: "welcome")
      observers.append(ws)
    }
    let after = try await metrics()
    #expect(value(after, "process_open_fds") == open + 5)
    #expect(value(after, "process_start_time_seconds") == start)
    #expect(text(after, hasType: "process_cpu_seconds_total", "counter"))
    #expect(text(after, hasType: "process_open_fds", "gauge"))
    for ws in observers { await ws.close() }
  }

  func text(_ text: String, hasType name: String, _ type: String) -> Bool {
    text.contains("# TYPE \(name) \(type)\n")
  }
}

import Testing
import TouchRelayClient

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
}

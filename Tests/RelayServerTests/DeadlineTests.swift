import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// Gestures decided by time alone (a single tap once the double-tap wait is over, a long
/// press once a finger has been held) come from the relay's deadline queue, one for all
/// sources: each source's arrives, once, never before its deadline.
@Suite struct DeadlineTests {
  @Test func everySourcesTimedGestureArrivesOnceAndNotBeforeItsDeadline() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (screen, _) = try await relay.observer("timers", query: "raw=1")
    var sources: [(WebSocketConnection, String)] = []
    for _ in 0..<24 { sources.append(try await relay.source("timers")) }
    // Even sources tap (the single tap is reported 300 ms after the lift), odd ones press and
    // hold (the long press begins 500 ms after the touch), each on a device clock of its own.
    for (i, (src, _)) in sources.enumerated() {
      let t0 = Double(1000 * (i + 1))
      var frames = [frameText(1, t: t0, [(1, "began", 100, 100)])]
      if i % 2 == 0 { frames.append(frameText(2, t: t0 + 60, [(1, "ended", 100, 100)])) }
      // In one flush: a busy machine could otherwise hold the lift back past the long press's
      // deadline, and the server rightly reports a long press (and its end) instead of a tap.
      try await src.send(texts: frames)
    }
    var lastTouchesRT: [String: Double] = [:]
    var timed: [String: [JSONValue]] = [:]
    let deadline = ContinuousClock.now + .seconds(10)
    while timed.values.reduce(0, { $0 + $1.count }) < sources.count, ContinuousClock.now < deadline {
      let m = try await screen.nextJSON()
      guard let source = m["source"]?.stringValue, let rt = m["rt"]?.doubleValue else { continue }
      switch m["type"]?.stringValue {
      case "touches": lastTouchesRT[source] = rt
      case "gesture": timed[source, default: []].append(m)
      default: break
      }
    }
    // Anything more would arrive well within this.
    for extra in try await screen.receiveAll(for: .milliseconds(400)) {
      if case .text(let text) = extra, let m = try? JSONValue.parse(text),
        m["type"]?.stringValue == "gesture", let source = m["source"]?.stringValue
      {
        timed[source, default: []].append(m)
      }
    }
    for (i, (_, id)) in sources.enumerated() {
      let t0 = Double(1000 * (i + 1))
      let got = timed[id] ?? []
      try #require(got.count == 1, "source \(id) got \(got)")
      let g = got[0]
      let (gesture, state, t) = i % 2 == 0 ? ("tap", "recognized", t0 + 60 + 300) : ("longpress", "began", t0 + 500)
      #expect(g["gesture"]?.stringValue == gesture)
      #expect(g["state"]?.stringValue == state)
      #expect(g["t"]?.doubleValue == t)
      // The server's time for the deadline is the last frame's server time plus what was left.
      let lastFrameT = i % 2 == 0 ? t0 + 60 : t0
      let due = try #require(lastTouchesRT[id]) + (t - lastFrameT)
      #expect(try #require(g["rt"]?.doubleValue) >= due - 0.01, "\(gesture) of \(id) came before its deadline")
    }
  }
}

import ConformanceSupport
import RelayCore
import Testing

/// A peer that floods is read more slowly, on virtual time with every timer exact: the driver
/// reads a message when it was sent or, while the core has the peer paused, when it resumes
/// (`CoreHarness.streamOnClock`: the rest wait in TCP), so these are the times the server
/// reads a flood at. Every message sent is taken or reported, and other sessions are served
/// meanwhile (`FloodRules`: a token bucket of one second's worth, a pause past about eleven
/// times the rate until a token is there, a pause past 100 errors in a window to its end).
@Suite struct FloodPacingTests {
  static let start = 1000.0

  /// `n` frames of one finger, sent at once at `start`.
  static func burst(_ h: CoreHarness, _ n: Int, from first: Int = 1) -> [(text: String, at: Double)] {
    (first..<first + n).map { seq in
      (h.frame(seq, t: Double(seq), [(1, seq == 1 ? "began" : "moved", 1, 1)]), start)
    }
  }

  /// What the `rate_limited` errors and `dropped` notices among `messages` count as dropped.
  static func reportedDropped(_ messages: [JSON]) -> Int {
    messages.reduce(0) { n, m in
      switch m.type {
      case "dropped": return n + Int(m["count"]?.number ?? 0)
      case "error":
        guard m["code"]?.string == "rate_limited", let text = m["message"]?.string else { return n }
        let count = text.split(separator: ";").last?.split(separator: " ").first.flatMap { Int($0) }
        return n + (count ?? 0)
      default: return n
      }
    }
  }

  @Test func aFrameFloodIsReadAtItsRateAndEveryFrameIsAccountedFor() throws {
    let h = CoreHarness { $0.limits.maxFramesPerSecond = 20 }
    let (watcher, _) = try h.observerOnClock("flood", at: 0)
    let (src, _) = try h.sourceOnClock("flood", at: 0)
    let (calmWatcher, _) = try h.observerOnClock("calm", at: 0)
    let (calm, _) = try h.sourceOnClock("calm", at: 0)
    _ = h.take(watcher)
    _ = h.take(calmWatcher)

    // 600 frames in one flush, 30 times the bucket of 20; a calm session is served in the
    // middle of it, at once.
    let burst = Self.burst(h, 600)
    var readAt = h.streamOnClock(Array(burst[..<300]), from: src)
    let mid = h.clock
    h.sendOnClock(h.frame(1, t: 1, []), from: calm, at: mid)
    #expect(h.take(calmWatcher).map { $0["rt"]?.number } == [mid])
    readAt += h.streamOnClock(Array(burst[300...]), from: src)
    #expect(readAt.count == 600)
    // The bucket's 20 and 21 refusals (more than a second's worth in one window: a flood) are
    // read at once; then reading waits for a token (50 ms at 20 a second), which lets two in
    // (the frame it takes and a refusal that pauses again) while the window lasts; a new
    // window takes its token's frame and the 21 refusals that are a flood again.
    #expect(readAt.prefix(41).allSatisfy { $0 == Self.start })
    #expect(readAt[41] == Self.start + 50 && readAt[42] == Self.start + 50)
    #expect(readAt[43...64].allSatisfy { $0 == Self.start + 100 })
    #expect(readAt[65] == Self.start + 150 && readAt[66] == Self.start + 150)
    #expect(readAt.filter { $0 < Self.start + 100 }.count == 43)
    #expect(readAt.filter { $0 < Self.start + 200 }.count == 43 + 24)
    #expect(h.takeDriverActions().filter { $0 == .pauseReading(src.id) }.count >= 20)

    // Once the burst is read, one more frame with a token there brings the last refusals'
    // count: every frame was mirrored or reported dropped, and only the tokens got through.
    let last = readAt[599]
    h.passTime(to: last + 50)
    h.sendOnClock(h.frame(601, t: 601, [(1, "moved", 1, 1)]), from: src)
    let mirrored = h.take(watcher).filter { $0.type == "touches" }.count
    let reported = Self.reportedDropped(h.take(src))
    #expect(mirrored + reported == 601, "\(mirrored) mirrored + \(reported) reported dropped")
    // 20 in the bucket at the start, then one per 50 ms of the flood, then the last one.
    #expect(mirrored == 20 + Int((last - Self.start) / 50) + 1, "\(mirrored) mirrored by \(last)")
    _ = h.takeDriverActions()
    h.finish()
  }

  @Test func anObserverFloodingControlsChangesTheSceneAtTheControlRate() throws {
    // 5 a second: a token each 200 ms, and an odd number of controls read per token (see
    // below), so that each control that passes changes the scene.
    let h = CoreHarness { $0.limits.maxControlsPerSecond = 5 }
    let hello = #"{"type":"hello","device":{"name":"p","width":400,"height":800},"scene":"flatcube"}"#
    _ = try h.sourceOnClock("ctl", hello: hello, at: 0)
    let (bystander, _) = try h.observerOnClock("ctl", at: 0)
    let (flooder, welcome) = try h.observerOnClock("ctl", at: 0)
    #expect(welcome["limits"]?["maxControlsPerSecond"]?.number == 5)

    // 400 controls in one flush, each toggling recognizeAny: each one that passes changes the
    // scene, for every observer of the session.
    let controls = (0..<400).map { i in (text: #"{"type":"control","recognizeAny":\#(i % 2 == 0)}"#, at: Self.start) }
    let readAt = h.streamOnClock(controls, from: flooder)
    // The bucket's 5 and 6 refusals at once; then, a token each 200 ms, each new window
    // takes the control its token lets through and the 6 refusals that are a flood again.
    #expect(readAt.prefix(11).allSatisfy { $0 == Self.start })
    #expect(readAt[11...17].allSatisfy { $0 == Self.start + 200 })
    #expect(readAt[18] == Self.start + 400)
    let scenes = h.take(bystander).filter { $0.type == "scene" }
    let end = readAt[399]
    // One scene change per token: the bucket's 5, then one per 200 ms.
    #expect(scenes.count == 5 + Int((end - Self.start) / 200), "\(scenes.count) scene changes by \(end)")
    #expect(scenes.prefix(5).allSatisfy { $0["rt"]?.number == Self.start })
    #expect(scenes.dropFirst(5).first?["rt"]?.number == Self.start + 200)
    _ = h.take(flooder)
    _ = h.takeDriverActions()
    h.finish()
  }

  @Test func aPeerSendingGarbageIsReadAHundredMessagesAWindowAndToldOfEach() throws {
    let h = CoreHarness()
    let (junk, _) = try h.sourceOnClock("junk", at: 0)
    let (calmWatcher, _) = try h.observerOnClock("calm", at: 0)
    let (calm, _) = try h.sourceOnClock("calm", at: 0)
    _ = h.take(calmWatcher)

    // 3,000 messages that are not JSON: past 100 errors in a window of 100 ms the peer is not
    // read for the rest of it, so 101 are read in each window.
    let junkText = Array(repeating: (text: "nope", at: Self.start), count: 3000)
    var readAt = h.streamOnClock(Array(junkText[..<150]), from: junk)
    // A calm session is served meanwhile, at once.
    let mid = h.clock
    h.sendOnClock(h.frame(1, t: 1, []), from: calm, at: mid)
    #expect(h.take(calmWatcher).map { $0["rt"]?.number } == [mid])
    readAt += h.streamOnClock(Array(junkText[150...]), from: junk)
    #expect(readAt.count == 3000)
    #expect(readAt.prefix(101).allSatisfy { $0 == Self.start })
    #expect(readAt[101] == Self.start + 100)
    #expect(readAt.filter { $0 < Self.start + 1000 }.count == 1010)
    #expect(readAt.last == Self.start + 2900)
    // Every message is answered: an error each, or counted in a `dropped` notice when the
    // errors outran the peer's queue.
    let answers = h.take(junk)
    let errors = answers.filter { $0["code"]?.string == "bad_json" }.count
    let dropped = answers.filter { $0.type == "dropped" }.reduce(0) { $0 + Int($1["count"]?.number ?? 0) }
    #expect(errors + dropped == 3000, "\(errors) errors + \(dropped) dropped")
    #expect(h.takeDriverActions().filter { $0 == .resumeReading(junk.id) }.count == 29)
    h.finish()
  }

  /// A burst under a flood: the refusals are dropped and reported, not answered one by one,
  /// and what the first report did not count is reported one window later though the source
  /// has gone quiet.
  @Test func refusalsLeftUnreportedAreReportedOneWindowLater() throws {
    let h = CoreHarness { $0.limits.maxFramesPerSecond = 20 }
    let (watcher, _) = try h.observerOnClock("quiet", at: 0)
    let (src, _) = try h.sourceOnClock("quiet", at: 0)
    _ = h.take(watcher)
    // 40 at once: 20 pass, 20 refused (no flood: not over a second's worth in the window).
    #expect(h.streamOnClock(Self.burst(h, 40), from: src).count == 40)
    #expect(h.takeDriverActions().isEmpty, "not a flood: never paused")
    let first = h.take(src)
    #expect(first.map { $0["code"]?.string } == ["rate_limited"])
    #expect(Self.reportedDropped(first) == 1)
    h.passTime(to: Self.start + FloodRules.windowMs - 0.001)
    #expect(h.take(src).isEmpty)
    h.passTime(to: Self.start + FloodRules.windowMs)
    let late = h.take(src)
    #expect(Self.reportedDropped(late) == 19)
    #expect(late.first?["seq"]?.number == 40)
    #expect(h.take(watcher).filter { $0.type == "touches" }.count == 20)
    h.finish()
  }
}

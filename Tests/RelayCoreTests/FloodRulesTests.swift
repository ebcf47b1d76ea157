import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// How a flood is throttled (`FloodRules`): refused frames are reported, not answered one by
/// one; a peer sending over about eleven times its rate is not read until a token is there;
/// a peer that earns over 100 errors in 100 ms is not read for the rest of that window.
@Suite struct FloodRulesTests {
  @Test func framesOverTheRateAreDroppedAndReportedWithTheirCount() throws {
    let h = CoreHarness { $0.limits.maxFramesPerSecond = 10 }
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s", at: 0)
    _ = h.take(obs)
    // 15 frames in one millisecond: the bucket holds 10.
    for i in 1...15 { h.send(h.frame(i, t: Double(1000 + i), []), from: src, at: 1 + Double(i) / 100) }
    #expect(h.take(obs).filter { $0.type == "touches" }.count == 10)
    let errors = h.take(src).filter { $0.type == "error" }
    #expect(errors.map { $0["code"]?.string } == ["rate_limited"])
    #expect(errors.first?["message"]?.string?.contains("1 frame dropped") == true)
    // The rest of the refusals go out with the next frame that passes.
    h.send(h.frame(16, t: 2000, []), from: src, at: 200)
    let next = h.take(src)
    #expect(next.first?["message"]?.string?.contains("4 frames dropped") == true)
  }

  @Test func aPeerSendingElevenTimesItsRateIsNotReadUntilATokenIsThere() throws {
    let h = CoreHarness { $0.limits.maxFramesPerSecond = 10 }
    let (src, _) = try h.source("s", at: 0)
    _ = h.takeActions()
    #expect(FloodRules.floodFactor == 11)
    // The bucket's 10, then 10 refusals within one window: the 11th refusal floods.
    for i in 1...20 { h.send(h.frame(i, t: Double(1000 + i), []), from: src, at: 1 + Double(i) / 100) }
    #expect(!h.takeActions().contains { $0.isPause })
    h.send(h.frame(21, t: 1021, []), from: src, at: 1.21)
    let pause = h.takeActions().filter(\.isPause)
    #expect(pause.count == 1 && pause[0].peerID == src.id)
    // Until the bucket holds a token again: about 100 ms at 10 a second.
    guard case .paused(let until) = src.reading else { return #expect(Bool(false), "not paused") }
    #expect(until > 100 && until < 102)
    #expect(h.core.counters.readPauses == 1)
    h.tick(at: until - 0.5)
    #expect(!h.takeActions().contains { $0.isResume })
    h.tick(at: until)
    #expect(h.takeActions().filter(\.isResume).map(\.peerID) == [src.id])
    #expect(src.reading == .reading)
  }

  @Test func controlsHaveTheirOwnRate() throws {
    let h = CoreHarness { $0.limits.maxControlsPerSecond = 2 }
    let hello = #"{"type":"hello","device":{"name":"pad","width":400,"height":800},"scene":"zoom"}"#
    _ = try h.source("s", hello: hello, at: 0)
    let (obs, _) = try h.observer("s")
    for _ in 0..<3 { h.send(#"{"type":"control","action":"reset"}"#, from: obs, at: 1) }
    let errors = h.take(obs).filter { $0.type == "error" }.compactMap { $0["code"]?.string }
    #expect(errors == ["rate_limited"])
    h.finish()
  }

  @Test func aPeerEarningOverAHundredErrorsInAWindowIsNotReadForTheRestOfIt() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s")
    _ = h.takeActions()
    for i in 0..<FloodRules.maxErrorsPerWindow { h.send("junk", from: obs, at: 10 + Double(i) / 1000) }
    #expect(!h.takeActions().contains { $0.isPause })
    h.send("junk", from: obs, at: 10.5)
    #expect(h.takeActions().filter(\.isPause).map(\.peerID) == [obs.id])
    #expect(obs.reading == .paused(until: 10 + FloodRules.windowMs))
    h.tick(at: 10 + FloodRules.windowMs)
    #expect(h.takeActions().filter(\.isResume).map(\.peerID) == [obs.id])
  }
}

/// `rate_limited` is at most one report per window among refusals, and at least one within a
/// window of the last refusal: a peer that goes quiet after a burst still hears how much it lost.
@Suite struct RateLimitedReportTests {
  @Test func refusalsLeftUnreportedWhenThePeerGoesQuietAreReportedWithinAWindow() throws {
    let h = CoreHarness { $0.limits.maxFramesPerSecond = 10 }
    let (src, _) = try h.source("s", at: 0)
    _ = h.take(src)
    // 10 pass, the 11th is refused and reported at once, 3 more are refused within the window.
    for i in 1...14 { h.send(h.frame(i, t: Double(1000 + i), []), from: src, at: 10 + Double(i) / 10) }
    let first = h.take(src).filter { $0.type == "error" }
    #expect(first.count == 1)
    #expect(first.first?["message"]?.string?.contains("1 frame dropped") == true)
    // The source sends nothing more; the rest is owed at the window's end.
    let reported = 10 + 1.1
    #expect(h.core.nextDue == reported + FloodRules.windowMs)
    h.tick(at: reported + FloodRules.windowMs - 1)
    #expect(h.take(src).isEmpty)
    h.tick(at: reported + FloodRules.windowMs)
    let late = h.take(src)
    #expect(late.map { $0["code"]?.string } == ["rate_limited"])
    #expect(late.first?["message"]?.string?.contains("3 frames dropped") == true)
    #expect(late.first?["seq"]?.number == 14)
    // Nothing more is owed.
    #expect(h.core.nextDue == nil)
    h.finish()
  }
}

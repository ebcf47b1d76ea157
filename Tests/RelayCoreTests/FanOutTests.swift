import ConformanceSupport
import OSC
import RelayCore
import Testing
import TouchProtocol

/// What each observer gets: the filters, the stamps, one encoding for all.
@Suite struct FanOutTests {
  @Test func observersGetWhatTheirFiltersAskForStampedWithTheSource() throws {
    let h = CoreHarness()
    let (all, _) = try h.observer("s", ObserverFilter(raw: true))
    let (gesturesOnly, _) = try h.observer("s", ObserverFilter(raw: false))
    let (tapsOfOther, _) = try h.observer("s", ObserverFilter(raw: true, source: "nobody"))
    let (src, id) = try h.source("s", at: 0)
    #expect(h.take(all).map(\.type) == ["source"])
    _ = h.take(gesturesOnly)
    #expect(h.take(tapsOfOther).isEmpty)
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: src, at: 5)
    h.send(h.frame(2, t: 1050, [(1, "ended", 10, 10)]), from: src, at: 55)
    let got = h.take(all)
    #expect(got.map(\.type) == ["touches", "touches"])
    #expect(got.map { $0["source"]?.string } == [id, id])
    #expect(got.map { $0["seq"]?.number } == [1, 2])
    #expect(got.map { $0["rt"]?.number } == [5, 55])
    #expect(h.take(gesturesOnly).isEmpty)
    #expect(h.take(tapsOfOther).isEmpty)
    h.finish()
  }

  @Test func aSingleTapIsReportedOnlyOnceTheDoubleTapWaitIsOver() throws {
    // The engine waits 300 ms after the lift for a second tap; the core maps that device-time
    // deadline onto server time with the latest frame's offset and fires it on the tick.
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, _) = try h.source("s", at: 0)
    _ = h.take(obs)
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: src, at: 100)
    h.send(h.frame(2, t: 1060, [(1, "ended", 10, 10)]), from: src, at: 160)
    #expect(h.core.nextDue == 460)
    h.tick(at: 459)
    #expect(h.take(obs).isEmpty)
    // The wake-up comes a slack after the deadline: an idle loop need not wait less.
    #expect(h.takeActions().compactMap(\.wakeTime).last == 460 + RelayCore.deadlineSlackMs)
    h.tick(at: 461)
    let tap = try #require(h.take(obs).first)
    #expect(tap["gesture"]?.string == "tap")
    #expect(tap["state"]?.string == "recognized")
    #expect(tap["t"]?.number == 1360)
    #expect(tap["rt"]?.number == 461)
    h.finish()
  }

  @Test func aPeerIsAnnouncedOnceUntilItsOutputIsTaken() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s", at: 0)
    _ = h.takeOutputs()
    _ = h.take(obs)
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: src, at: 1)
    h.send(h.frame(2, t: 1010, [(1, "moved", 20, 10)]), from: src, at: 2)
    // Two messages, one announcement: the driver pulls until nothing is left.
    #expect(h.takeOutputs() == [obs.serial])
    #expect(h.take(obs).count == 2)
    h.send(h.frame(3, t: 1020, [(1, "moved", 30, 10)]), from: src, at: 3)
    #expect(h.takeOutputs() == [obs.serial])
  }

  /// A call into the core from inside `drainOutputs`' body that drains again (a driver's own
  /// library call can cause a callback at once) returns: the outer call hands over what was
  /// added meanwhile, and every peer goes out once.
  @Test func aDrainFromInsideADrainHandsEveryPeerOverOnce() throws {
    let h = CoreHarness()
    let (a1, _) = try h.observer("a")
    let (a2, _) = try h.observer("a", address: "10.0.0.3")
    let (b, _) = try h.observer("b", address: "10.0.0.4")
    let (sourceA, _) = try h.source("a", at: 0)
    let (sourceB, _) = try h.source("b", address: "10.0.0.5", at: 0)
    _ = h.takeOutputs()
    for p in [a1, a2, b] { _ = h.take(p) }
    func frame(from source: Peer, at t: Double) {
      Array(h.frame(1, t: 10, [(1, "began", 10, 10)]).utf8).withUnsafeBytes { h.core.receive($0, from: source.id, at: t) }
    }
    frame(from: sourceA, at: 1)
    var handed: [Int] = []
    func body(_ peer: PeerID) {
      handed.append(h.opened(peer).serial)
      guard handed.count == 1 else { return }
      frame(from: sourceB, at: 2)
      h.core.drainOutputs(body)
    }
    h.core.drainOutputs(body)
    #expect(handed.count == 3)
    #expect(Set(handed) == Set([a1, a2, b].map(\.serial)))
  }

  @Test func theSameEventsGiveTheSameBytes() throws {
    func run() throws -> [String] {
      let h = CoreHarness()
      let (obs, _) = try h.observer("s")
      let (src, _) = try h.source("s", at: 1)
      for i in 1...20 {
        let phase = i == 1 ? "began" : i == 20 ? "ended" : "moved"
        h.send(
          h.frame(i, t: Double(1000 + i * 16), [(1, phase, Double(10 + i * 7), 50)]), from: src, at: Double(i * 16))
      }
      h.tick(at: 2000)
      return h.take(obs).map(\.description)
    }
    let a = try run()
    #expect(a.count > 20)
    #expect(a == (try run()))
  }

  @Test func anObserverThatJoinsLateGetsTheSourcesAndTheirScenesInItsWelcome() throws {
    let h = CoreHarness()
    let hello = #"{"type":"hello","device":{"name":"pad","width":400,"height":800},"scene":"flatcube"}"#
    _ = try h.source("s", hello: hello, at: 0)
    let (_, welcome) = try h.observer("s", at: 10)
    #expect(welcome["sources"]?.array?.count == 1)
    #expect(welcome["scenes"] != nil)
    h.finish()
  }

  /// `format=tuio`: one OSC bundle per frame and one OSC message per gesture, binary, encoded
  /// once for every TUIO observer; notices stay JSON; JSON observers get no OSC.
  @Test func tuioObserversGetOSCOncePerFrameAndJSONNotices() throws {
    let h = CoreHarness()
    var f = ObserverFilter()
    f.format = .tuio
    f.raw = true
    let (a, _) = try h.observer("t", f)
    let (b, _) = try h.observer("t", f)
    let (json, _) = try h.observer("t")
    let (src, id) = try h.source("t")
    h.send(h.frame(1, t: 10, [(1, "began", 100, 200)]), from: src, at: 10)
    h.send(h.frame(2, t: 20, [(1, "ended", 100, 200)]), from: src, at: 20)
    var firstBundle: OutgoingMessage?
    for peer in [a, b] {
      let messages = h.messages(peer)
      #expect(messages.first?.isBinary == false && messages.first?.text.contains("\"joined\"") == true)
      let osc = messages.filter(\.isBinary)
      #expect(osc.count == 2)
      let bundle = try OSCDecoder.decode(osc[0].withPayload { Array($0) }).get()
      #expect(bundle.messages[0].arguments == [.string("source"), .string("touchrelay:\(id)@localhost")])
      #expect(bundle.messages[2].arguments[2] == .float32(0.25) && bundle.messages[2].arguments[3] == .float32(0.25))
      // The same bytes for both: encoded once.
      if let first = firstBundle { #expect(first === osc[0]) } else { firstBundle = osc[0] }
    }
    #expect(!h.take(json).isEmpty)
    #expect(h.take(json).isEmpty)
    h.finish()
  }
}

/// The driver advances the core's time when each event is done (`advance()`), reading no
/// clock: a timer set or cleared plans the wake-up again, and a deadline that fell due between
/// events fires at the next event's end, by that event's server time.
@Suite struct SettleTimersTests {
  @Test func aTapsWaitPlansAWakeUpWhenTheEventEnds() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, _) = try h.source("s", at: 0)
    _ = h.take(obs)
    _ = h.takeActions()
    h.core.advance()
    #expect(!h.core.timersUnsettled)
    #expect(h.takeActions().compactMap(\.wakeTime).isEmpty)
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: src, at: 100)
    h.send(h.frame(2, t: 1060, [(1, "ended", 10, 10)]), from: src, at: 160)
    // The double-tap wait is a deadline, 300 ms after the lift.
    #expect(h.core.timersUnsettled)
    h.core.advance()
    #expect(!h.core.timersUnsettled)
    #expect(h.takeActions().compactMap(\.wakeTime) == [460 + RelayCore.deadlineSlackMs])
    // Settling again with nothing moved and nothing due does nothing.
    h.core.advance()
    #expect(h.takeActions().isEmpty)
    #expect(h.take(obs).isEmpty)
    h.finish()
  }

  @Test func aDeadlineThatFellDueFiresAtTheNextEventsEnd() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (a, _) = try h.source("s", at: 0)
    let (b, _) = try h.source("s", address: "10.0.0.3", at: 0)
    _ = h.take(obs)
    // A taps: its single tap is due at 460.
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: a, at: 100)
    h.send(h.frame(2, t: 1060, [(1, "ended", 10, 10)]), from: a, at: 160)
    h.core.advance()
    _ = h.takeActions()
    // B's idle frames before the deadline leave it pending.
    h.send(h.frame(1, t: 7000, []), from: b, at: 459)
    h.core.advance()
    #expect(h.take(obs).isEmpty)
    // The first event past it fires it, stamped with that event's server time.
    h.send(h.frame(2, t: 7010, []), from: b, at: 462)
    #expect(h.core.timersUnsettled)
    h.core.advance()
    let tap = h.take(obs)
    #expect(tap.map { $0["gesture"]?.string } == ["tap"])
    #expect(tap.first?["rt"]?.number == 462)
    #expect(!h.core.timersUnsettled)
    h.finish()
  }

  @Test func aStopsDrainPlansItsEnd() throws {
    let h = CoreHarness()
    _ = try h.observer("s")
    _ = h.takeActions()
    h.core.requestShutdown(at: 10)
    #expect(h.core.timersUnsettled)
    h.core.advance()
    #expect(h.takeActions().compactMap(\.wakeTime).count == 1)
  }

  /// Ticks with nothing set or cleared and nothing due do nothing; a deadline armed between
  /// them, due before the one they know of, is still fired on time.
  @Test func idleTicksBetweenDeadlinesMissNone() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (a, _) = try h.source("s", at: 0)
    let (b, _) = try h.source("s", address: "10.0.0.3", at: 0)
    _ = h.take(obs)
    // A holds a finger down: a long press is due 500 ms on, at 600.
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: a, at: 100)
    h.tick(at: 150)
    #expect(h.core.nextDue == 600)
    #expect(h.takeActions().compactMap(\.wakeTime) == [600 + RelayCore.deadlineSlackMs])
    for t in stride(from: 155.0, to: 160, by: 1) { h.tick(at: t) }
    #expect(h.takeActions().compactMap(\.wakeTime).isEmpty)
    // B taps between two ticks: its single tap is due at 500, before A's press.
    h.send(h.frame(1, t: 5000, [(1, "began", 50, 50)]), from: b, at: 160)
    h.send(h.frame(2, t: 5040, [(1, "ended", 50, 50)]), from: b, at: 200)
    for t in stride(from: 210.0, to: 500, by: 10) { h.tick(at: t) }
    #expect(h.take(obs).isEmpty)
    h.tick(at: 501)
    #expect(h.take(obs).map { $0["gesture"]?.string } == ["tap"])
    for t in stride(from: 510.0, to: 600, by: 10) { h.tick(at: t) }
    #expect(h.take(obs).isEmpty)
    h.tick(at: 601)
    #expect(h.take(obs).map { $0["gesture"]?.string } == ["longpress"])
    h.finish()
  }
}

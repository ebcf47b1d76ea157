import ConformanceSupport
import RelayCore
import Testing

/// Shutdown on virtual time: every peer gets what was queued for it, then 1001; the server
/// is done when the last peer is gone, and whatever is still open when `drainTimeout` is over
/// is cut at exactly that time, never before.
@Suite struct ShutdownDrainTests {
  @Test func everyPeerGetsItsQueueThen1001AndTheServerIsDoneWithTheLast() throws {
    let h = CoreHarness { $0.drainTimeout = 5 }
    let (screen, _) = try h.observerOnClock("bye", at: 0)
    let (phone, _) = try h.sourceOnClock("bye", at: 10)
    h.sendOnClock(h.frame(1, t: 100, [(1, "began", 10, 10)]), from: phone, at: 20)
    h.shutdownOnClock(at: 30)
    // What was queued still goes out, then the close.
    #expect(h.take(screen).map(\.type) == ["source", "touches"])
    #expect(h.takeClose(screen)?.code == 1001)
    #expect(h.takeClose(phone)?.code == 1001)
    #expect(h.takeClose(phone)?.reason == "server shutting down")
    // A source that goes during the drain has left (nobody may resume on a server that
    // stops), and an observer being closed is sent nothing queued after its close.
    h.dropOnClock(phone, at: 40)
    #expect(h.take(screen).isEmpty)
    #expect(h.takeDriverActions().isEmpty)
    h.closeOnClock(screen, code: 1001, at: 50)
    #expect(h.takeDriverActions() == [.finished])
    // Nothing is left to wake for: the drain's deadline went with the last peer.
    h.passTime(to: 10_000)
    h.finish()
  }

  @Test func peersStillOpenAtTheDrainDeadlineAreCutThenAndNotBefore() throws {
    let h = CoreHarness { $0.drainTimeout = 2 }
    // An observer that never reads: what is queued for it stays queued.
    let (stalled, _) = try h.observerOnClock("s", at: 0)
    let (leaving, _) = try h.observerOnClock("s", at: 0)
    h.shutdownOnClock(at: 1000)
    #expect(h.takeClose(leaving)?.code == 1001)
    h.closeOnClock(leaving, code: 1001, at: 1500)
    h.passTime(to: 2999.999)
    #expect(h.takeDriverActions().isEmpty, "cut before the drain's end")
    h.passTime(to: 3000)
    #expect(h.takeLogMessages().contains("drain deadline passed, cutting connections"))
    #expect(h.takeDriverActions() == [.kill(stalled.id), .finished])
    _ = h.takeClose(stalled)
    h.finish()
  }

  @Test func aDrainOfNoTimeCutsAtOnceAndAServerWithNoPeersIsDoneAtOnce() throws {
    let h = CoreHarness { $0.drainTimeout = 0 }
    let (obs, _) = try h.observerOnClock("s", at: 0)
    h.shutdownOnClock(at: 100)
    #expect(h.takeDriverActions() == [.kill(obs.id), .finished])
    _ = h.takeClose(obs)
    h.finish()

    let empty = CoreHarness()
    empty.shutdownOnClock(at: 5)
    #expect(empty.takeDriverActions() == [.finished])
    empty.finish()
  }

  /// A second request (SIGTERM twice) changes nothing: the first drain's deadline stands.
  @Test func aSecondShutdownRequestKeepsTheFirstDeadline() throws {
    let h = CoreHarness { $0.drainTimeout = 1 }
    let (obs, _) = try h.observerOnClock("s", at: 0)
    h.shutdownOnClock(at: 0)
    h.shutdownOnClock(at: 900)
    h.passTime(to: 999.999)
    #expect(h.takeDriverActions().isEmpty)
    h.passTime(to: 1000)
    #expect(h.takeDriverActions() == [.kill(obs.id), .finished])
    _ = h.takeClose(obs)
    h.finish()
  }
}

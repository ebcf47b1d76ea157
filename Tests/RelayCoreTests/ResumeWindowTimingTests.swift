import ConformanceSupport
import RelayCore
import Testing

/// The resume window on virtual time: a source whose connection ends without a clean close
/// (the network dropped, or the driver's library hung up on it for silence: the idle timeout
/// is libwebsockets', what follows is the core's) keeps its id for `resumeWindow`; observers
/// get `left` 1 ms after the window ends and not before, `rejoined` if it comes back within.
@Suite struct ResumeWindowTimingTests {
  static func resumeHello(_ id: String) -> String {
    #"{"type":"hello","device":{"name":"phone","width":400,"height":800},"resume":"\#(id)"}"#
  }

  @Test func aDroppedSourceHasLeftOneMillisecondAfterItsWindowEnds() throws {
    let h = CoreHarness { $0.resumeWindow = 10 }
    let (screen, _) = try h.observerOnClock("w", ObserverFilter(), at: 0)
    let (phone, id) = try h.sourceOnClock("w", at: 0)
    #expect(h.take(screen).map { $0["event"]?.string } == ["joined"])
    h.dropOnClock(phone, at: 1000)
    h.passTime(to: 11_000.999)
    #expect(h.take(screen).isEmpty, "left before the window ended")
    h.passTime(to: 11_001)
    let left = h.take(screen)
    #expect(left.map { $0["event"]?.string } == ["left"])
    #expect(left.first?["source"]?.string == id)
    // Too late: a new id, `joined`.
    let (_, late) = try h.sourceOnClock("w", hello: Self.resumeHello(id), at: 11_001)
    #expect(late != id)
    #expect(h.take(screen).map { $0["event"]?.string } == ["joined"])
    h.finish()
  }

  @Test func aSourceBackAtTheWindowsLastMomentKeepsItsIdAndNoLeftFollows() throws {
    let h = CoreHarness { $0.resumeWindow = 10 }
    let (screen, _) = try h.observerOnClock("r", ObserverFilter(), at: 0)
    let (phone, id) = try h.sourceOnClock("r", at: 0)
    _ = h.take(screen)
    h.dropOnClock(phone, at: 500)
    let (again, resumed) = try h.sourceOnClock("r", hello: Self.resumeHello(id), at: 10_500)
    #expect(resumed == id)
    #expect(h.take(screen).map { $0["event"]?.string } == ["rejoined"])
    // A resume of an id that is not departed gets a fresh one.
    let (_, other) = try h.sourceOnClock("r", hello: Self.resumeHello("s999"), at: 10_600)
    #expect(other != id && other != "s999")
    _ = h.take(screen)
    h.passTime(to: 60_000)
    #expect(h.take(screen).isEmpty)
    h.closeOnClock(again, at: 60_000)
    #expect(h.take(screen).map { $0["event"]?.string } == ["left"])
    h.finish()
  }

  /// Only 1000 is a goodbye: a page being left (1001) or any other code may be a phone
  /// that comes back.
  @Test(arguments: [(1000, true), (1001, false), (4000, false)])
  func onlyACleanCloseIsAGoodbye(code: Int, leavesAtOnce: Bool) throws {
    let h = CoreHarness { $0.resumeWindow = 2 }
    let (screen, _) = try h.observerOnClock("c", ObserverFilter(), at: 0)
    let (phone, _) = try h.sourceOnClock("c", at: 0)
    _ = h.take(screen)
    h.closeOnClock(phone, code: UInt16(code), at: 100)
    #expect(h.take(screen).map { $0["event"]?.string } == (leavesAtOnce ? ["left"] : []))
    h.passTime(to: 2101)
    #expect(h.take(screen).map { $0["event"]?.string } == (leavesAtOnce ? [] : ["left"]))
    h.finish()
  }

  /// Several sources dropped at different times leave each at its own window's end, in order.
  @Test func eachDroppedSourceLeavesAtItsOwnTime() throws {
    let h = CoreHarness { $0.resumeWindow = 1 }
    let (screen, _) = try h.observerOnClock("m", ObserverFilter(), at: 0)
    let (a, idA) = try h.sourceOnClock("m", at: 0)
    let (b, idB) = try h.sourceOnClock("m", at: 0)
    _ = h.take(screen)
    h.dropOnClock(b, at: 100)
    h.dropOnClock(a, at: 400)
    h.passTime(to: 1100.5)
    #expect(h.take(screen).isEmpty)
    h.passTime(to: 1101)
    #expect(h.take(screen).map { $0["source"]?.string } == [idB])
    h.passTime(to: 1400.5)
    #expect(h.take(screen).isEmpty)
    h.passTime(to: 1401)
    #expect(h.take(screen).map { $0["source"]?.string } == [idA])
    h.finish()
  }

  /// A source hung up on mid-pan (a phone gone silent: no close frame): its pan is cancelled
  /// at once, stamped with the hang-up's server time and the device time it stands for (the
  /// latest frame's clock offset applied), and observers are told it left when its window ends.
  @Test func aSourceHungUpOnMidPanHasItsPanCancelledAtTheHangUpAndLeavesAfterItsWindow() throws {
    let h = CoreHarness { $0.resumeWindow = 10 }
    let (screen, _) = try h.observerOnClock("quiet", ObserverFilter(), at: 0)
    let (phone, id) = try h.sourceOnClock("quiet", at: 0)
    _ = h.take(screen)
    // Device time t arrives at server time t + 4000.
    for (seq, x) in [(1, 100.0), (2, 130.0), (3, 160.0)] {
      let t = Double(seq) * 16
      h.sendOnClock(h.frame(seq, t: t, [(1, seq == 1 ? "began" : "moved", x, 100)]), from: phone, at: 4000 + t)
    }
    let began = h.take(screen)
    #expect(began.first.map { "\($0["gesture"]?.string ?? "") \($0["state"]?.string ?? "")" } == "pan began")
    // Silent from 4048 on; the driver's library hangs up on it at 12,048 (its idle timeout).
    h.passTime(to: 12_048)
    #expect(h.take(screen).isEmpty, "nothing happens while it is merely silent")
    h.dropOnClock(phone, at: 12_048)
    let cancelled = h.take(screen)
    #expect(cancelled.map { "\($0["gesture"]?.string ?? "") \($0["state"]?.string ?? "")" } == ["pan cancelled"])
    #expect(cancelled.first?["rt"]?.number == 12_048)
    #expect(cancelled.first?["t"]?.number == 8048)
    #expect(cancelled.first?["source"]?.string == id)
    h.passTime(to: 22_048.5)
    #expect(h.take(screen).isEmpty)
    h.passTime(to: 22_049)
    #expect(h.take(screen).map { $0["event"]?.string } == ["left"])
    h.finish()
  }
}

import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// A source whose connection drops without a clean close keeps its id for the resume window:
/// `hello.resume` within it gets the id back and observers `rejoined`; after it, `left`.
@Suite struct ResumeWindowTests {
  func resumeHello(_ id: String) -> String {
    #"{"type":"hello","device":{"name":"phone","width":400,"height":800},"resume":"\#(id)"}"#
  }

  @Test func aDroppedSourceThatResumesInTimeKeepsItsId() throws {
    let h = CoreHarness { $0.resumeWindow = 10 }
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, id) = try h.source("s", at: 0)
    _ = h.take(obs)
    h.core.closed(src.id, at: 1000)
    #expect(h.take(obs).isEmpty)
    #expect(h.core.nextDue == 11_001)
    let (_, again) = try h.source("s", hello: resumeHello(id), at: 9000)
    #expect(again == id)
    let notices = h.take(obs).filter { $0.type == "source" }
    #expect(notices.map { $0["event"]?.string } == ["rejoined"])
    h.tick(at: 12_000)
    #expect(h.take(obs).isEmpty)
    h.finish()
  }

  @Test func aSourceThatDoesNotComeBackHasLeftWhenTheWindowEnds() throws {
    let h = CoreHarness { $0.resumeWindow = 10 }
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, id) = try h.source("s", at: 0)
    _ = h.take(obs)
    h.core.closed(src.id, at: 1000)
    h.tick(at: 10_999)
    #expect(h.take(obs).isEmpty)
    h.tick(at: 11_001)
    let left = h.take(obs)
    #expect(left.map { $0["event"]?.string } == ["left"])
    #expect(left.first?["source"]?.string == id)
    // Too late: a new id.
    let (_, late) = try h.source("s", hello: resumeHello(id), at: 12_000)
    #expect(late != id)
  }

  @Test func aCleanCloseIsAGoodbye() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, _) = try h.source("s", at: 0)
    _ = h.take(obs)
    h.core.peerSentClose(src.id, code: 1000)
    h.core.closed(src.id, at: 5)
    #expect(h.take(obs).map { $0["event"]?.string } == ["left"])
    #expect(h.core.nextDue == nil)
    h.finish()
  }

  @Test func anActiveGestureIsCancelledWhenItsSourceDrops() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, _) = try h.source("s", at: 0)
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: src, at: 10)
    h.send(h.frame(2, t: 1100, [(1, "moved", 100, 10)]), from: src, at: 110)
    h.send(h.frame(3, t: 1200, [(1, "moved", 200, 10)]), from: src, at: 210)
    _ = h.take(obs)
    h.core.closed(src.id, at: 300)
    let got = h.take(obs).filter { $0.type == "gesture" }
    #expect(got.map { $0["state"]?.string } == ["cancelled"])
    #expect(got.first?["gesture"]?.string == "pan")
    h.finish()
  }
}

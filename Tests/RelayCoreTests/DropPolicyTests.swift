import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// What happens when an observer's queue is full: the oldest message a later one supersedes
/// goes, the observer is told how many with `dropped` before its next message, then gets fresh
/// scene snapshots; messages that say something happened (a gesture's began and ended, a
/// source joining) are never dropped, and an observer that lets them pile up past the hard
/// limit is closed with 1008.
@Suite struct DropPolicyTests {
  @Test func aFullQueueDropsRawTouchesAndSaysSoBeforeTheNextMessage() throws {
    let h = CoreHarness { $0.limits.observerQueue = 8 }
    // Raw touches only: every message it misses is one of the 40 frames.
    let (obs, _) = try h.observer("s", ObserverFilter(raw: true, gestures: []))
    let (src, _) = try h.source("s", at: 0)
    _ = h.take(obs)
    // 40 frames while the observer reads nothing.
    for i in 1...40 {
      let phase = i == 1 ? "began" : "moved"
      h.send(h.frame(i, t: Double(1000 + i * 10), [(1, phase, Double(i), 5)]), from: src, at: Double(i * 10))
    }
    let got = h.take(obs)
    let dropped = try #require(got.first)
    #expect(dropped.type == "dropped")
    let count = try #require(dropped["count"]?.number)
    // Then what was kept: the newest touches, in order.
    let touches = got.dropFirst()
    #expect(touches.allSatisfy { $0.type == "touches" })
    #expect(Double(touches.count) + count == 40)
    #expect(touches.map { $0["seq"]?.number ?? 0 } == (41 - touches.count...40).map(Double.init))
    #expect(h.core.counters.droppedForObservers == Int(count))
    h.finish()
  }

  @Test func afterAGapAnObserverGetsAFreshSnapshotOfEveryScene() throws {
    let h = CoreHarness { $0.limits.observerQueue = 4 }
    let (obs, _) = try h.observer("s")
    let hello = #"{"type":"hello","device":{"name":"pad","width":400,"height":800},"scene":"zoom"}"#
    let (src, _) = try h.source("s", hello: hello, at: 0)
    _ = h.take(obs)
    for i in 1...20 {
      let phase = i == 1 ? "began" : "moved"
      h.send(h.frame(i, t: Double(1000 + i * 10), [(1, phase, Double(i * 5), 5)]), from: src, at: Double(i * 10))
    }
    let got = h.take(obs)
    #expect(got.prefix(2).map(\.type) == ["dropped", "scene"])
    // The snapshot is the scene as it is now, stamped with the latest frame.
    #expect(got[1]["seq"]?.number == 20)
    h.finish()
  }

  @Test func essentialMessagesAreKeptUntilTheHardLimitThenTheObserverIsClosed() throws {
    let h = CoreHarness {
      $0.limits.observerQueue = 2
      $0.essentialOverflowFactor = 3
    }
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    // Each source's join is essential: the 7th past a hard limit of 6 closes the observer.
    var joined = 0
    for i in 0..<7 {
      _ = try h.source("s", address: "10.0.1.\(i)", at: Double(i))
      joined += 1
    }
    let close = try #require(h.decidedClose(obs))
    #expect(close.code == .policyViolation)
    #expect(close.reason.contains("too slow"))
    // Cut short: nothing queued is sent, only the close.
    #expect(h.take(obs).isEmpty)
    #expect(h.takeActions().contains { $0.logLine?.message == "observer too slow, closing" })
  }
}

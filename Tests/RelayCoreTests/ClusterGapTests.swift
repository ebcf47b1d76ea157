import ConformanceSupport
import RelayCore
import Testing

/// The bus between cluster nodes on virtual time, carried by the test: records lost or late
/// (Redis gone a moment, a reconnect) are a gap each local observer is told of (`dropped`)
/// before the next message, never a message out of order; the node is asked for its sources
/// again at most once a second; a node silent past `nodeTimeout` is dead, and a source held
/// for a resume leaves exactly when its hold ends (protocol/README.md, section 7).
@Suite struct ClusterGapTests {
  static func node(_ name: String, epoch: UInt64) -> CoreHarness {
    CoreHarness { $0.cluster = ClusterRules(node: name, epoch: epoch) }
  }

  /// Carries every notice and data message of each node to the others, and confirms every
  /// subscription, at `t`, until nothing is left to carry.
  static func exchange(_ nodes: [CoreHarness], at t: Double) {
    var moved = true
    while moved {
      moved = false
      for from in nodes {
        let (notices, subscribe) = from.takeBusActions()
        let data = from.takeBusData()
        moved = moved || !notices.isEmpty || !subscribe.isEmpty || data != nil
        for to in nodes where to !== from {
          for n in notices { to.busNoticeOnClock(n, at: t) }
          if let data { to.busDataOnClock(data, at: t) }
        }
        for node in subscribe { from.busSubscribedOnClock(node, at: t) }
      }
    }
  }

  /// Nodes A and B with the bus up at 0, a raw observer of `session` on B, a source on A.
  static func twoNodes(
    _ session: String
  ) throws -> (a: CoreHarness, b: CoreHarness, observer: CoreHarness.PeerHandle, source: CoreHarness.PeerHandle) {
    let a = node("A", epoch: 1)
    let b = node("B", epoch: 2)
    a.busUpOnClock(at: 0)
    b.busUpOnClock(at: 0)
    exchange([a, b], at: 0)
    let (observer, _) = try b.observerOnClock(session, at: 0)
    let (source, _) = try a.sourceOnClock(session, at: 0)
    exchange([a, b], at: 0)
    #expect(b.take(observer).map { $0["event"]?.string } == ["joined"])
    _ = a.takeLogMessages()
    _ = b.takeLogMessages()
    return (a, b, observer, source)
  }

  /// Frame `seq` from `source` on `a` at `rt`, a finger held still; the data message it made.
  static func frame(_ a: CoreHarness, _ source: CoreHarness.PeerHandle, _ seq: Int, at rt: Double) throws -> [UInt8] {
    a.sendOnClock(a.frame(seq, t: rt, [(1, seq == 1 ? "began" : "moved", 50, 50)]), from: source, at: rt)
    return try #require(a.takeBusData())
  }

  @Test func aLostMessageIsDroppedBeforeTheNextAndALateOneIsNeverDelivered() throws {
    let (a, b, observer, source) = try Self.twoNodes("gap")
    let m1 = try Self.frame(a, source, 1, at: 1100)
    let m2 = try Self.frame(a, source, 2, at: 1116)
    let m3 = try Self.frame(a, source, 3, at: 1132)
    let m4 = try Self.frame(a, source, 4, at: 1148)
    b.busDataOnClock(m1, at: 1101)
    #expect(b.take(observer).map { $0["seq"]?.number } == [1])
    b.busDataOnClock(m3, at: 1133)
    let gap = b.take(observer)
    #expect(gap.map(\.type) == ["dropped", "touches"], "\(gap)")
    #expect(gap.first?["count"]?.number == 1)
    #expect(gap.last?["seq"]?.number == 3)
    // The stamps are the source's node's: server time there, not here.
    #expect(gap.last?["rt"]?.number == 1132)
    #expect(b.takeLogMessages() == ["cluster bus gap"])
    // The gap asks A for its sources (the subscription asked at 0, over a second ago).
    let (notices, _) = b.takeBusActions()
    #expect(notices.map(CoreHarness.describe) == ["sync B→A"])
    // m2 comes after m3 (a reconnect's resend): it was reported missed, and is not delivered late.
    b.busDataOnClock(m2, at: 1134)
    #expect(b.take(observer).isEmpty)
    b.busDataOnClock(m4, at: 1149)
    #expect(b.take(observer).map { $0["seq"]?.number } == [4])
    // A's answer repeats nothing the observer has.
    for n in notices { a.busNoticeOnClock(n, at: 1150) }
    Self.exchange([a, b], at: 1150)
    #expect(b.take(observer).isEmpty)
    a.finish()
    b.finish()
  }

  @Test func aGapAsksForTheNodesSourcesAtMostOnceASecond() throws {
    let (a, b, observer, source) = try Self.twoNodes("sync")
    // The subscription asked at 0; gaps at 500, 1000, 1999 and 2000 (each a message lost).
    var seq = 0
    var asked: [Double] = []
    for t in [500.0, 1000, 1999, 2000] {
      seq += 1
      _ = try Self.frame(a, source, seq, at: t - 1)
      seq += 1
      b.busDataOnClock(try Self.frame(a, source, seq, at: t), at: t)
      #expect(b.take(observer).map(\.type) == ["dropped", "touches"], "at \(t)")
      if b.takeBusActions().notices.map(CoreHarness.describe) == ["sync B→A"] { asked.append(t) }
    }
    #expect(asked == [1000, 2000])
    _ = a.takeDriverActions()
    a.finish()
    b.finish()
  }

  @Test func aNodeSilentPastTheTimeoutIsDeadThenAndItsHeldSourceLeavesWhenItsHoldEnds() throws {
    let (a, b, observer, source) = try Self.twoNodes("dead")
    // A pan under way on A, seen on B.
    a.sendOnClock(a.frame(1, t: 100, [(1, "began", 100, 100)]), from: source, at: 100)
    for k in 1...6 {
      a.sendOnClock(a.frame(1 + k, t: 100 + Double(k) * 16, [(1, "moved", 100 + Double(k) * 20, 100)]), from: source)
    }
    Self.exchange([a, b], at: 1000)
    #expect(b.take(observer).contains { $0["gesture"]?.string == "pan" && $0["state"]?.string == "began" })
    // A's last word is at 1000; B's own heartbeats come each second and at the edges.
    _ = b.busHeartbeatOnClock(at: 2000)
    _ = b.busHeartbeatOnClock(at: 4000)
    #expect(b.take(observer).isEmpty, "dead after exactly the timeout: 3 s of silence is not past it")
    _ = b.busHeartbeatOnClock(at: 4000.5)
    let cancelled = b.take(observer)
    #expect(cancelled.map { "\($0["gesture"]?.string ?? "") \($0["state"]?.string ?? "")" } == ["pan cancelled"])
    #expect(cancelled.first?["rt"]?.number == 4000.5)
    #expect(b.takeDriverActions() == [.busUnsubscribe("A")])
    // Held for a resume on any node for the resume window from then (10 s).
    _ = b.busHeartbeatOnClock(at: 14_000.499)
    #expect(b.take(observer).isEmpty)
    _ = b.busHeartbeatOnClock(at: 14_000.5)
    #expect(b.take(observer).map { $0["event"]?.string } == ["left"])
    _ = b.takeLogMessages()
    _ = a.takeBusActions()
    b.finish()
  }

  /// A source that resumed on another node before its own node's death was noticed lives on
  /// there: the death, when it is noticed, cancels nothing of it, and no `left` follows.
  @Test func aSourceResumedElsewhereBeforeItsNodesDeathIsNoticedLivesOn() throws {
    let (a, b, c) = (Self.node("A", epoch: 1), Self.node("B", epoch: 2), Self.node("C", epoch: 3))
    for h in [a, b, c] { h.busUpOnClock(at: 0) }
    Self.exchange([a, b, c], at: 0)
    let (observer, _) = try b.observerOnClock("moved", at: 0)
    let (source, id) = try a.sourceOnClock("moved", at: 0)
    a.sendOnClock(a.frame(1, t: 10, [(1, "began", 100, 100)]), from: source, at: 10)
    Self.exchange([a, b, c], at: 10)
    #expect(b.take(observer).map(\.type) == ["source", "touches"])
    // A dies without a word at 10; the phone resumes its id on C at 500.
    let hello = #"{"type":"hello","device":{"name":"phone","width":400,"height":800},"resume":"\#(id)"}"#
    let (again, resumed) = try c.sourceOnClock("moved", hello: hello, at: 500)
    #expect(resumed == id)
    Self.exchange([b, c], at: 500)
    #expect(b.take(observer).map { $0["event"]?.string } == ["rejoined"])
    // B finds A dead at its first heartbeat past the timeout; C is heard all along.
    for t in stride(from: 1000.0, through: 20_000, by: 1000) {
      if let heartbeat = c.busHeartbeatOnClock(at: t) { b.busNoticeOnClock(heartbeat, at: t) }
      _ = b.busHeartbeatOnClock(at: t)
      #expect(b.take(observer).isEmpty, "at \(t)")
    }
    #expect(b.takeDriverActions().contains(.busUnsubscribe("A")))
    // Its frames come from C now.
    c.sendOnClock(c.frame(2, t: 20_010, [(1, "began", 10, 10)]), from: again, at: 20_010)
    Self.exchange([b, c], at: 20_010)
    let touches = b.take(observer)
    #expect(touches.map { $0["seq"]?.number } == [2] && touches.first?["source"]?.string == id)
    _ = c.takeDriverActions()
    b.finish()
    c.finish()
  }

  /// A source its node reported dropped is held the resume window and `departedGrace` past
  /// it, in case the `left` its node sends at the window's end is lost.
  @Test func aSourceReportedDroppedIsHeldItsWindowAndTheGraceThenLeaves() throws {
    let (a, b, observer, source) = try Self.twoNodes("held")
    a.dropOnClock(source, at: 1000)
    Self.exchange([a, b], at: 1000)
    #expect(b.take(observer).isEmpty, "a dropped source has not left")
    // A stays alive, and its `left` at the window's end (11,001) never reaches B.
    for t in stride(from: 2000.0, through: 12_000, by: 1000) {
      if let heartbeat = a.busHeartbeatOnClock(at: t) { b.busNoticeOnClock(heartbeat, at: t) }
      _ = a.takeBusData()
      _ = b.busHeartbeatOnClock(at: t)
      #expect(b.take(observer).isEmpty, "left at \(t), before its hold ended")
    }
    _ = b.busHeartbeatOnClock(at: 12_999.999)
    #expect(b.take(observer).isEmpty)
    _ = b.busHeartbeatOnClock(at: 13_000)
    #expect(b.take(observer).map { $0["event"]?.string } == ["left"])
    // Nor did B's heartbeats reach A: for A, B is dead.
    #expect(a.takeDriverActions().contains(.busUnsubscribe("B")))
    _ = b.takeDriverActions()
    a.finish()
    b.finish()
  }
}

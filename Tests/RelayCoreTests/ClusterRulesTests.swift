import RelayCore
import Testing
import TouchProtocol

/// Two cluster nodes' cores joined by a bus the test carries by hand: each data message and
/// notice is handed over (or lost) when the test says. The rules of RelayCore+Cluster, without
/// Redis or sockets.
final class TwoNodes {
  let a: CoreHarness
  let b: CoreHarness

  init(at t: Double = 0) {
    a = CoreHarness(at: t) { $0.cluster = ClusterRules(node: "A", epoch: 1) }
    b = CoreHarness(at: t) { $0.cluster = ClusterRules(node: "B", epoch: 2) }
  }

  /// The bus comes up on both, and each hears the other's heartbeat and answers its sync.
  func connect(at t: Double) {
    a.core.busConnected(at: t)
    b.core.busConnected(at: t)
    exchange(at: t)
    exchange(at: t)
  }

  /// Carries every notice and data message each node has for the other, once.
  func exchange(at t: Double, dropData: Bool = false) {
    for (from, to) in [(a, b), (b, a)] {
      for action in from.takeActions() {
        switch action {
        case .busNotice(let bytes): bytes.withUnsafeBytes { to.core.busReceived(notice: $0, at: t) }
        default: break
        }
      }
      if let data = from.core.takeBusData(), !dropData { data.withUnsafeBytes { to.core.busReceived(data: $0, at: t) } }
    }
    for h in [a, b] {
      for action in h.takeActions() {
        if case .busSubscribe(let node) = action { h.core.busSubscribed(node: node, at: t) }
        if case .busNotice(let bytes) = action {
          let other = h === a ? b : a
          bytes.withUnsafeBytes { other.core.busReceived(notice: $0, at: t) }
        }
      }
    }
  }

  /// A heartbeat from `from` reaches the other node.
  func heartbeat(_ from: CoreHarness, at t: Double) {
    let to = from === a ? b : a
    if let hb = from.core.busHeartbeat(at: t) { hb.withUnsafeBytes { to.core.busReceived(notice: $0, at: t) } }
  }
}

@Suite struct ClusterRulesTests {
  @Test func aRemoteSourcesMessagesReachLocalObserversWithTheirStamps() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obsB, _) = try nodes.b.observer("s")
    let (obsA, _) = try nodes.a.observer("s")
    let (src, id) = try nodes.a.source("s", at: 10)
    #expect(id == "A.s1")
    nodes.a.send(nodes.a.frame(1, t: 100, [(1, "began", 5, 5)]), from: src, at: 20)
    nodes.exchange(at: 21)
    let onA = nodes.a.take(obsA).filter { $0.type == "touches" }
    let onB = nodes.b.take(obsB)
    #expect(onB.map(\.type) == ["source", "touches"])
    #expect(onB.last == onA.last, "the same message, seq, t and rt")
  }

  @Test func aLostDataMessageIsReportedAsDroppedBeforeTheNextMessage() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obsB, _) = try nodes.b.observer("s")
    let (src, _) = try nodes.a.source("s", at: 1)
    nodes.exchange(at: 1)
    _ = nodes.b.take(obsB)
    nodes.a.send(nodes.a.frame(1, t: 100, [(1, "began", 5, 5)]), from: src, at: 2)
    nodes.a.send(nodes.a.frame(2, t: 116, [(1, "moved", 6, 5)]), from: src, at: 3)
    nodes.exchange(at: 3, dropData: true)
    nodes.a.send(nodes.a.frame(3, t: 132, [(1, "moved", 7, 5)]), from: src, at: 4)
    nodes.exchange(at: 4)
    let got = nodes.b.take(obsB)
    #expect(got.first?.type == "dropped", "\(got)")
    #expect(got.first?["count"]?.number == 2)
    #expect(got.last?["seq"]?.number == 3)
    #expect(nodes.b.core.cluster?.counters.gaps == 1)
  }

  @Test func aSilentNodesGesturesAreCancelledAndItsSourcesLeaveAfterTheWindow() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obsB, _) = try nodes.b.observer("s")
    let (src, id) = try nodes.a.source("s", at: 1)
    nodes.a.send(nodes.a.frame(1, t: 100, [(1, "began", 100, 100)]), from: src, at: 2)
    for k in 1...6 {
      nodes.a.send(
        nodes.a.frame(1 + k, t: 100 + Double(k) * 16, [(1, "moved", 100 + Double(k) * 20, 100)]), from: src, at: 3)
    }
    nodes.exchange(at: 3)
    #expect(nodes.b.take(obsB).contains { $0["gesture"]?.string == "pan" && $0["state"]?.string == "began" })
    // A falls silent: nothing at 3 s; dead past it.
    nodes.heartbeat(nodes.b, at: 3000)
    _ = nodes.b.core.busHeartbeat(at: 3003)
    #expect(nodes.b.take(obsB).isEmpty)
    _ = nodes.b.core.busHeartbeat(at: 4000)
    let cancelled = nodes.b.take(obsB)
    #expect(cancelled.map { $0["state"]?.string } == ["cancelled"], "\(cancelled)")
    #expect(cancelled.first?["source"]?.string == id)
    _ = nodes.b.core.busHeartbeat(at: 13_999)
    #expect(nodes.b.take(obsB).isEmpty, "held for the resume window")
    _ = nodes.b.core.busHeartbeat(at: 14_001)
    let left = nodes.b.take(obsB)
    #expect(left.map { $0["event"]?.string } == ["left"], "\(left)")
  }

  @Test func aSourceResumedOnAnotherNodeIsHandedOverWithoutALeft() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obsA, _) = try nodes.a.observer("s")
    let (src, id) = try nodes.a.source("s", at: 1)
    nodes.exchange(at: 1)
    nodes.a.core.closed(src, at: 2)  // dropped: held for a resume
    nodes.exchange(at: 2)
    let (again, resumed) = try nodes.b.source(
      "s", hello: #"{"type":"hello","device":{"name":"phone","width":400,"height":800},"resume":"\#(id)"}"#, at: 3)
    #expect(resumed == id)
    nodes.exchange(at: 3)
    let seen = nodes.a.take(obsA).compactMap { $0["event"]?.string }
    #expect(seen == ["joined", "rejoined"], "\(seen)")
    // A's own resume window ends without a `left`: the source lives on at B.
    nodes.a.tick(at: 20_000)
    #expect(!nodes.a.take(obsA).contains { $0["event"]?.string == "left" })
    _ = again
  }

  @Test(arguments: [
    [UInt8](), Array("TRB1".utf8), Array("TRB1\u{1}A".utf8), [UInt8](repeating: 0xFF, count: 64),
    Array("TRN1H\u{1}A".utf8),
  ])
  func malformedBusMessagesAreCountedAndIgnored(_ junk: [UInt8]) throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obsB, _) = try nodes.b.observer("s")
    junk.withUnsafeBytes {
      nodes.b.core.busReceived(data: $0, at: 1)
      nodes.b.core.busReceived(notice: $0, at: 1)
    }
    #expect(nodes.b.take(obsB).isEmpty)
    #expect(nodes.b.core.cluster?.counters.malformed.values.reduce(0, +) == 2)
  }

  /// Every prefix of a real data message is refused whole (never half applied).
  @Test func aTruncatedDataMessageIsRefusedWhole() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obsB, _) = try nodes.b.observer("s")
    let (src, _) = try nodes.a.source("s", at: 1)
    nodes.a.send(nodes.a.frame(1, t: 100, [(1, "began", 5, 5)]), from: src, at: 2)
    let data = try #require(nodes.a.core.takeBusData())
    for n in stride(from: 0, to: data.count, by: 7) {
      Array(data[0..<n]).withUnsafeBytes { nodes.b.core.busReceived(data: $0, at: 3) }
    }
    #expect(nodes.b.take(obsB).isEmpty)
    data.withUnsafeBytes { nodes.b.core.busReceived(data: $0, at: 3) }
    #expect(nodes.b.take(obsB).map(\.type) == ["source", "touches"])
  }
}

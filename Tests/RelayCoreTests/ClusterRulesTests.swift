import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// Two cluster nodes' cores joined by a bus the test carries by hand: each data message and
/// notice is handed over (or lost) when the test says. The rules of RelayCore+Cluster, without
/// Redis or sockets.
final class TwoNodes {
  let a: CoreHarness
  let b: CoreHarness

  init(at t: Double = 0, _ configure: (inout RelayCore.Configuration) -> Void = { _ in }) {
    a = CoreHarness(at: t) {
      configure(&$0)
      $0.cluster = ClusterRules(node: "A", epoch: 1)
    }
    b = CoreHarness(at: t) {
      configure(&$0)
      $0.cluster = ClusterRules(node: "B", epoch: 2)
    }
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
    if let hb = from.busHeartbeat(at: t) { hb.withUnsafeBytes { to.core.busReceived(notice: $0, at: t) } }
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
    _ = nodes.b.busHeartbeat(at: 3003)
    #expect(nodes.b.take(obsB).isEmpty)
    _ = nodes.b.busHeartbeat(at: 4000)
    let cancelled = nodes.b.take(obsB)
    #expect(cancelled.map { $0["state"]?.string } == ["cancelled"], "\(cancelled)")
    #expect(cancelled.first?["source"]?.string == id)
    _ = nodes.b.busHeartbeat(at: 13_999)
    #expect(nodes.b.take(obsB).isEmpty, "held for the resume window")
    _ = nodes.b.busHeartbeat(at: 14_001)
    let left = nodes.b.take(obsB)
    #expect(left.map { $0["event"]?.string } == ["left"], "\(left)")
  }

  @Test func aSourceResumedOnAnotherNodeIsHandedOverWithoutALeft() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obsA, _) = try nodes.a.observer("s")
    let (src, id) = try nodes.a.source("s", at: 1)
    nodes.exchange(at: 1)
    nodes.a.core.closed(src.id, at: 2)  // dropped: held for a resume
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

/// Controls across nodes (protocol/README.md, section 7 "Controls"): an observer on one node
/// drives the scene of a source on another, with or without naming it, as often as it likes,
/// and what that node refuses comes back to the observer that sent it, and to no other.
@Suite struct ClusterControlRulesTests {
  static let flatcube = #"{"type":"hello","device":{"name":"phone","width":400,"height":800},"scene":"flatcube"}"#

  /// A flatcube source on A, watched on A and by two observers on B, the bus exchanged.
  struct Setup {
    let nodes: TwoNodes
    let id: String
    let source: Peer
    let onA: Peer
    let onB1: Peer
    let onB2: Peer

    init(_ configure: (inout RelayCore.Configuration) -> Void = { _ in }) throws {
      nodes = TwoNodes(configure)
      nodes.connect(at: 0)
      (onA, _) = try nodes.a.observer("c", ObserverFilter())
      (source, id) = try nodes.a.source("c", hello: ClusterControlRulesTests.flatcube, at: 1)
      nodes.exchange(at: 1)
      (onB1, _) = try nodes.b.observer("c", ObserverFilter(), at: 2)
      (onB2, _) = try nodes.b.observer("c", ObserverFilter(), at: 2)
      for p in [onA] { _ = nodes.a.take(p) }
    }

    /// `text` from `peer` of `node`, then the bus both ways, twice (there and back).
    func control(_ text: String, from peer: Peer, on node: CoreHarness, at t: Double) {
      node.send(text, from: peer, at: t)
      nodes.exchange(at: t)
      nodes.exchange(at: t)
    }

    /// What each observer got: A's, then B's two.
    func taken() -> [[JSON]] {
      [nodes.a.take(onA), nodes.b.take(onB1), nodes.b.take(onB2)]
    }
  }

  static func recognizeAny(_ m: [JSON]) -> [Bool?] {
    m.filter { $0.type == "scene" }.map {
      switch $0["state"]?["recognizeAny"] {
      case .bool(let b)?: return b
      default: return nil
      }
    }
  }

  @Test func controlsFromSeveralRemoteObserversWithAndWithoutSourceEachChangeTheScene() throws {
    let s = try Setup()
    // (sender, text, the recognizeAny every observer then sees)
    let steps: [(Peer, CoreHarness, String, Bool)] = [
      (s.onB1, s.nodes.b, #"{"type":"control","recognizeAny":true}"#, true),
      (s.onB1, s.nodes.b, #"{"type":"control","recognizeAny":false}"#, false),
      (s.onB2, s.nodes.b, #"{"type":"control","source":"\#(s.id)","recognizeAny":true}"#, true),
      (s.onB2, s.nodes.b, #"{"type":"control","recognizeAny":false}"#, false),
      (s.onA, s.nodes.a, #"{"type":"control","recognizeAny":true}"#, true),
      (s.onB1, s.nodes.b, #"{"type":"control","source":"\#(s.id)","recognizeAny":false}"#, false),
      (s.onB1, s.nodes.b, #"{"type":"control","recognizeAny":true}"#, true),
    ]
    for (k, (peer, node, text, want)) in steps.enumerated() {
      s.control(text, from: peer, on: node, at: Double(10 + k))
      for (i, got) in s.taken().enumerated() {
        #expect(Self.recognizeAny(got) == [want], "step \(k), observer \(i): \(got)")
        #expect(
          got.allSatisfy { $0.type == "scene" && $0["source"]?.string == s.id }, "step \(k), observer \(i): \(got)")
      }
    }
  }

  @Test func whatTheSourcesNodeRefusesComesBackToTheSenderOnlyEveryTime() throws {
    let s = try Setup()
    for k in 0..<3 {
      for (peer, other) in [(s.onB1, s.onB2), (s.onB2, s.onB1)] {
        let text =
          k % 2 == 0
          ? #"{"type":"control","action":"spin"}"# : #"{"type":"control","source":"\#(s.id)","action":"spin"}"#
        s.control(text, from: peer, on: s.nodes.b, at: Double(10 + k))
        let got = s.nodes.b.take(peer)
        #expect(got.map(\.type) == ["error"], "round \(k): \(got)")
        #expect(got.first?["code"]?.string == "unknown_action")
        #expect(s.nodes.b.take(other).isEmpty)
        #expect(s.nodes.a.take(s.onA).isEmpty)
      }
      // A control that works, between the refused ones, still works.
      s.control(#"{"type":"control","recognizeAny":\#(k % 2 == 0)}"#, from: s.onB1, on: s.nodes.b, at: Double(20 + k))
      for (i, got) in s.taken().enumerated() {
        #expect(Self.recognizeAny(got) == [k % 2 == 0], "round \(k), observer \(i): \(got)")
      }
    }
  }

  /// A remote source without a scene: `unknown_scene`, from its node, to the sender.
  @Test func aControlForARemoteSourceWithoutASceneIsRefusedThere() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    _ = try nodes.a.source("n", at: 1)
    nodes.exchange(at: 1)
    let (obs, _) = try nodes.b.observer("n", ObserverFilter(), at: 2)
    for k in 0..<2 {
      nodes.b.send(#"{"type":"control","action":"reset"}"#, from: obs, at: Double(3 + k))
      nodes.exchange(at: Double(3 + k))
      nodes.exchange(at: Double(3 + k))
      let got = nodes.b.take(obs)
      #expect(got.map { $0["code"]?.string } == ["unknown_scene"], "\(got)")
    }
  }

  /// Sources on both nodes: a control must name one; a name nobody has is refused at once.
  @Test func aControlWithoutSourceAmongSeveralOrNamingNoneIsUnknownSource() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    _ = try nodes.a.source("m", hello: Self.flatcube, at: 1)
    let (_, idB) = try nodes.b.source("m", hello: Self.flatcube, at: 1)
    nodes.exchange(at: 1)
    let (obs, _) = try nodes.b.observer("m", ObserverFilter(), at: 2)
    for text in [#"{"type":"control","recognizeAny":true}"#, #"{"type":"control","source":"C.s1","action":"reset"}"#] {
      nodes.b.send(text, from: obs, at: 3)
      nodes.exchange(at: 3)
      nodes.exchange(at: 3)
      let got = nodes.b.take(obs)
      #expect(got.map { $0["code"]?.string } == ["unknown_source"], "\(text): \(got)")
    }
    nodes.b.send(#"{"type":"control","source":"\#(idB)","recognizeAny":true}"#, from: obs, at: 4)
    #expect(Self.recognizeAny(nodes.b.take(obs)) == [true])
  }

  /// With its bus down a node cannot carry a control to another node's source: the observer
  /// is told at once, and the control is not sent once the bus is back either.
  @Test func aControlForARemoteSourceWhileTheBusIsDownIsRefusedAtOnce() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (_, idA) = try nodes.a.source("u", hello: Self.flatcube, at: 1)
    nodes.exchange(at: 1)
    let (obs, _) = try nodes.b.observer("u", ObserverFilter(), at: 2)
    nodes.b.core.busDisconnected(at: 3)
    _ = nodes.b.takeLogMessages()
    for text in [#"{"type":"control","recognizeAny":true}"#, #"{"type":"control","source":"\#(idA)","action":"reset"}"#] {
      nodes.b.send(text, from: obs, at: 4)
      let got = nodes.b.take(obs)
      #expect(got.map { $0["code"]?.string } == ["source_unreachable"], "\(text): \(got)")
      #expect(got.first?["message"]?.string?.contains(idA) == true)
    }
    nodes.b.core.busConnected(at: 5)
    nodes.exchange(at: 5)
    nodes.exchange(at: 6)
    // The sync after the bus is back brings the scene as it is: the refused control did not
    // reach it late.
    #expect(!Self.recognizeAny(nodes.b.take(obs)).contains(true), "nothing was carried late")
    nodes.b.send(#"{"type":"control","recognizeAny":true}"#, from: obs, at: 7)
    nodes.exchange(at: 7)
    nodes.exchange(at: 7)
    #expect(Self.recognizeAny(nodes.b.take(obs)) == [true], "with the bus back, a control goes through")
  }

  /// A control is a message to one node, not part of the session's numbered stream: carrying
  /// it (and its error back) is no gap, and the streams' next messages come without `dropped`.
  @Test func controlsAcrossTheBusAreNoGapInTheSessionsStreams() throws {
    let s = try Setup()
    let (rawA, _) = try s.nodes.a.observer("c", ObserverFilter(raw: true), at: 2)
    let (rawB, _) = try s.nodes.b.observer("c", ObserverFilter(raw: true), at: 2)
    let (phoneB, idB) = try s.nodes.b.source("c", at: 2)
    s.nodes.exchange(at: 2)
    _ = s.nodes.a.take(rawA)
    _ = s.nodes.b.take(rawB)
    for k in 1...3 {
      let t = Double(10 + k)
      s.control(#"{"type":"control","source":"\#(s.id)","action":"spin"}"#, from: s.onB2, on: s.nodes.b, at: t)
      s.control(
        #"{"type":"control","source":"\#(s.id)","recognizeAny":\#(k % 2 == 1)}"#, from: s.onB1, on: s.nodes.b, at: t)
      s.nodes.a.send(s.nodes.a.frame(k, t: Double(100 * k), []), from: s.source, at: t)
      s.nodes.b.send(s.nodes.b.frame(k, t: Double(100 * k), []), from: phoneB, at: t)
      s.nodes.exchange(at: t)
    }
    for (node, raw) in [(s.nodes.a, rawA), (s.nodes.b, rawB)] {
      let got = node.take(raw)
      #expect(!got.contains { $0.type == "dropped" }, "\(got)")
      for id in [s.id, idB] {
        let seqs = got.filter { $0.type == "touches" && $0["source"]?.string == id }.map { $0["seq"]?.number }
        #expect(seqs == [1, 2, 3], "\(id): \(got)")
      }
      #expect(node.core.cluster?.counters.gaps == 0)
    }
  }

  /// Whatever an observer's control looks like on the wire (white space around it, members the
  /// protocol does not know, more of them than a bus record may carry), it travels as a
  /// control: neither it nor the rest of its node's data message is refused by the source's node.
  @Test(arguments: [
    " \n{\"type\":\"control\",\"source\":\"A.s1\",\"recognizeAny\":true}\r\n\t",
    #"{"type":"control","source":"A.s1","recognizeAny":true,"note":"\#(String(repeating: "x", count: 1_100_000))"}"#,
  ])
  func aControlsTextDoesNotSpoilItsNodesDataMessage(_ text: String) throws {
    let s = try Setup { $0.limits.maxMessageBytes = 2_000_000 }
    #expect(s.id == "A.s1")
    let (rawA, _) = try s.nodes.a.observer("c", ObserverFilter(raw: true), at: 2)
    let (phoneB, _) = try s.nodes.b.source("c", at: 3)
    s.nodes.exchange(at: 3)
    _ = s.nodes.a.take(rawA)
    _ = s.taken()
    // The control and a frame of B's own source, in one data message.
    s.nodes.b.send(text, from: s.onB1, at: 4)
    s.nodes.b.send(s.nodes.b.frame(1, t: 100, []), from: phoneB, at: 4)
    s.nodes.exchange(at: 4)
    s.nodes.exchange(at: 4)
    #expect(s.nodes.a.core.cluster?.counters.malformed.isEmpty == true, "\(s.nodes.a.core.cluster!.counters.malformed)")
    #expect(s.nodes.a.take(rawA).contains { $0.type == "touches" && $0["seq"]?.number == 1 })
    for (i, got) in s.taken().enumerated() {
      #expect(Self.recognizeAny(got) == [true], "observer \(i): \(got)")
    }
  }

  /// An action longer than any scene has is refused by the source's node like any unknown one,
  /// however long: it does not make B's data message too large for a bus record.
  @Test func anOverlongActionIsRefusedThereAndSpoilsNothing() throws {
    let s = try Setup { $0.limits.maxMessageBytes = 2_000_000 }
    let (rawA, _) = try s.nodes.a.observer("c", ObserverFilter(raw: true), at: 2)
    let (phoneB, _) = try s.nodes.b.source("c", at: 3)
    s.nodes.exchange(at: 3)
    _ = s.nodes.a.take(rawA)
    _ = s.taken()
    let action = String(repeating: "r", count: 1_100_000)
    s.nodes.b.send(#"{"type":"control","source":"\#(s.id)","action":"\#(action)"}"#, from: s.onB1, at: 4)
    s.nodes.b.send(s.nodes.b.frame(1, t: 100, []), from: phoneB, at: 4)
    s.nodes.exchange(at: 4)
    s.nodes.exchange(at: 4)
    #expect(s.nodes.a.core.cluster?.counters.malformed.isEmpty == true)
    #expect(s.nodes.a.take(rawA).contains { $0.type == "touches" && $0["seq"]?.number == 1 })
    let got = s.nodes.b.take(s.onB1)
    #expect(got.map { $0["code"]?.string } == ["unknown_action"], "\(got.map { $0.description.prefix(200) })")
  }
}

import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// `?predict=MS` on a cluster node for another node's source, on virtual time: the receiving
/// node predicts from the records, so its observer gets what an observer with the same MS on
/// the source's node gets, byte for byte; a record whose message cannot be read back is sent
/// on as it came.
@Suite struct ClusterPredictionTests {
  static func predicting(_ ms: Int) -> ObserverFilter {
    var f = ObserverFilter(raw: true, gestures: GestureKinds())
    f.predict = ms
    return f
  }

  /// Nodes A and B with the bus up, an observer with `filter` on each, a source on A.
  static func twoNodes(_ filter: ObserverFilter) throws -> (
    a: CoreHarness, b: CoreHarness, onA: CoreHarness.PeerHandle, onB: CoreHarness.PeerHandle,
    source: CoreHarness.PeerHandle
  ) {
    let a = ClusterGapTests.node("A", epoch: 1)
    let b = ClusterGapTests.node("B", epoch: 2)
    a.busUpOnClock(at: 0)
    b.busUpOnClock(at: 0)
    ClusterGapTests.exchange([a, b], at: 0)
    let (onA, _) = try a.observerOnClock("s", filter, at: 0)
    let (onB, _) = try b.observerOnClock("s", filter, address: "10.0.0.3", at: 0)
    let (source, _) = try a.sourceOnClock("s", at: 0)
    ClusterGapTests.exchange([a, b], at: 0)
    #expect(a.take(onA).map { $0["event"]?.string } == ["joined"])
    #expect(b.take(onB).map { $0["event"]?.string } == ["joined"])
    return (a, b, onA, onB, source)
  }

  @Test func anotherNodesObserverGetsTheSamePredictionsAsOneOnTheSourcesNode() throws {
    let (a, b, onA, onB, source) = try Self.twoNodes(Self.predicting(33))
    // Speeding up along x, a frame every 8 ms.
    for i in 0..<8 {
      let t = 1000 + 8 * Double(i)
      let x = 100 + 0.02 * Double(i * i * 64)
      a.sendOnClock(a.frame(i + 1, t: t, [(1, i == 0 ? "began" : "moved", x, 50)]), from: source, at: t)
      ClusterGapTests.exchange([a, b], at: t)
    }
    let local = a.messages(onA).map(\.text)
    let remote = b.messages(onB).map(\.text)
    #expect(local.count == 8)
    #expect(remote == local)
    #expect(local.dropFirst().allSatisfy { $0.contains(#""predicted":{"x":"#) })
    _ = a.takeLogMessages()
    _ = b.takeLogMessages()
  }

  @Test func aRecordThatDoesNotReadBackIsSentOnAsItCame() throws {
    let (a, b, _, onB, source) = try Self.twoNodes(Self.predicting(16))
    a.sendOnClock(a.frame(1, t: 1000, [(1, "began", 10, 10)]), from: source, at: 1000)
    ClusterGapTests.exchange([a, b], at: 1000)
    a.sendOnClock(a.frame(2, t: 1010, [(1, "moved", 20, 10)]), from: source, at: 1010)
    // The record's message, tampered with on the way: its entry has no `x` any more (the
    // same length, still UTF-8 and an object: the node's check lets it through).
    var data = try #require(a.takeBusData())
    let x = Array(#""x":20"#.utf8)
    let at = try #require((0...(data.count - x.count)).first { Array(data[$0..<$0 + x.count]) == x })
    data[at + 1] = UInt8(ascii: "q")
    b.busDataOnClock(data, at: 1011)
    let got = b.messages(onB).map(\.text)
    #expect(got.count == 2)
    #expect(got.last?.hasSuffix(#""touches":[{"id":1,"phase":"moved","q":20,"y":10}]}"#) == true, "\(got)")
    _ = a.takeLogMessages()
    _ = b.takeLogMessages()
  }
}

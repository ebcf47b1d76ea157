import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// Several `touch-relay` processes on a real `redis-server` act as one relay
/// (protocol/README.md, "Cluster"). Serialized: each test runs its own Redis and two or three
/// nodes, and the machine has two cores.
@Suite(.serialized) struct ClusterTests {
  static let hello = #"{"type":"hello","device":{"name":"Phone","width":400,"height":800}}"#
  static let flatcube =
    #"{"type":"hello","device":{"name":"Phone","width":400,"height":800},"scene":"flatcube"}"#

  /// Taps: began and ended 80 ms apart, 400 ms between taps (seq 2k-1 and 2k). Sent in one
  /// flush (`send(texts:)`): the engine times taps by the frames' `t`, but a lift held back
  /// by a busy machine past the long press's deadline in server time would make a long press.
  static func tapFrames(_ count: Int, from first: Int = 1, t0: Double = 1000) -> [String] {
    (0..<count).flatMap { i -> [String] in
      let seq = first + 2 * i
      let t = t0 + Double(i) * 400
      return [
        frameText(seq, t: t, [(1, "began", 100, 100)]), frameText(seq + 1, t: t + 80, [(1, "ended", 100, 100)]),
      ]
    }
  }

  @Test func aSourceOnOneNodeReachesObserversOnEveryNodeInOrderWithFilters() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B", "C"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (a, b, c) = (nodes[0], nodes[1], nodes[2])
    let (rawA, _) = try await a.observer("s", query: "raw=1")
    let (rawB, _) = try await b.observer("s", query: "raw=1")
    let (tapsC, _) = try await c.observer("s", query: "gestures=tap")
    let (otherB, _) = try await b.observer("s", query: "source=nobody&raw=1")
    let (phone, id) = try await a.source("s", hello: Self.hello)
    #expect(id.hasPrefix("A."), "source ids carry their node: \(id)")
    let frames = Self.tapFrames(10)
    try await phone.send(texts: frames)
    let onA = try await rawA.collect { $0.type == "touches" && $0["seq"]?.intValue == 20 }
    let onB = try await rawB.collect { $0.type == "touches" && $0["seq"]?.intValue == 20 }
    // Same messages, byte for byte as JSON values, in the same order.
    let touchesA = onA.filter { $0.type == "touches" }
    let touchesB = onB.filter { $0.type == "touches" }
    #expect(touchesA.map { $0["seq"]?.intValue } == Array(1...20).map { Optional($0) })
    #expect(touchesB == touchesA, "raw touches on B are A's, with the same seq, t and rt")
    #expect(onB.first?.type == "source" && onB.first?["event"]?.stringValue == "joined")
    // Taps only, from C: 10 of them (the last after the double-tap wait), nothing else.
    var taps: [JSONValue] = []
    let deadline = ContinuousClock.now + TestTime.seconds(10)
    while taps.count < 10, ContinuousClock.now < deadline {
      let got = try await tapsC.jsonFor(.milliseconds(200))
      #expect(got.allSatisfy { $0.type == "gesture" || $0.type == "source" }, "\(got)")
      taps += got.filter { $0.type == "gesture" }
    }
    #expect(taps.count == 10)
    #expect(taps.allSatisfy { $0["gesture"]?.stringValue == "tap" && $0["source"]?.stringValue == id })
    let other = try await otherB.jsonUntilCaughtUp()
    #expect(other.isEmpty, "a source filter applies to other nodes' sources: \(other)")
    for ws in [rawA, rawB, tapsC, otherB, phone] { await ws.close() }
  }

  @Test func aLateObserverGetsTheWholeSessionInItsWelcome() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B", "C"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (p1, id1) = try await nodes[0].source("late", hello: Self.flatcube)
    let (p2, id2) = try await nodes[2].source("late", hello: Self.hello)
    try await nodes[1].waitForRemoteSources(2)
    let (obs, welcome) = try await nodes[1].observer("late")
    let ids = welcome["sources"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    #expect(Set(ids) == [id1, id2], "\(welcome)")
    let device = welcome["sources"]?.arrayValue?.first { $0["id"]?.stringValue == id1 }?["device"]
    #expect(device?["name"]?.stringValue == "Phone")
    let scenes = welcome["scenes"]?.arrayValue ?? []
    #expect(scenes.count == 1 && scenes.first?["source"]?.stringValue == id1, "\(welcome)")
    #expect(scenes.first?["state"]?["scene"]?.stringValue == "flatcube")
    #expect(welcome["cluster"]?["node"]?.stringValue == "B")
    #expect(welcome["cluster"]?["bus"]?.stringValue == "up")
    for ws in [obs, p1, p2] { await ws.close() }
  }

  @Test func aControlOnOneNodeChangesTheSceneOfASourceOnAnother() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B", "C"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (phone, id) = try await nodes[0].source("ctl", hello: Self.flatcube)
    let (watchA, _) = try await nodes[0].observer("ctl")
    let (remote, welcome) = try await nodes[2].observer("ctl", seeing: id)
    #expect(welcome["scenes"]?.arrayValue?.first?["state"]?["recognizeAny"]?.boolValue == false)
    try await remote.send(text: #"{"type":"control","source":"\#(id)","recognizeAny":true}"#)
    for ws in [watchA, remote] {
      let scene = try await ws.nextJSON(type: "scene", timeout: TestTime.seconds(5))
      #expect(scene["source"]?.stringValue == id)
      #expect(scene["state"]?["recognizeAny"]?.boolValue == true, "\(scene)")
    }
    // A control the source's node refuses is answered to the observer that sent it.
    try await remote.send(text: #"{"type":"control","source":"\#(id)","recognizeAny":"yes"}"#)
    let error = try await remote.nextJSON(type: "error", timeout: TestTime.seconds(5))
    #expect(error["code"]?.stringValue != nil, "\(error)")
    for ws in [phone, watchA, remote] { await ws.close() }
  }

  @Test func aSourceDroppedOnOneNodeResumesOnAnother() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B", "C"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (obsA, _) = try await nodes[0].observer("res")
    let (obsC, _) = try await nodes[2].observer("res")
    let (phone, id) = try await nodes[0].source("res", hello: Self.hello)
    try await phone.send(text: frameText(1, t: 1000, [(1, "began", 10, 10)]))
    // A has read the frame, and the other nodes know the source (B is where it resumes).
    try await eventually("A reads the frame") { metricValue(try await nodes[0].metrics(), "touchrelay_frames_in_total") == 1 }
    for node in nodes.dropFirst() { try await node.waitForRemoteSources(1) }
    try await phone.drop()
    try await eventually("A sees its source's connection drop") { try await nodes[0].health()["connections"]?.intValue == 1 }
    let again = try await WebSocketConnection.connect(nodes[1].url("/v1/source/res"))
    try await again.send(
      text: #"{"type":"hello","device":{"name":"Phone","width":400,"height":800},"resume":"\#(id)"}"#)
    let welcome = try await again.nextJSON(type: "welcome")
    #expect(welcome["source"]?.stringValue == id)
    #expect(welcome["resumed"]?.boolValue == true)
    for obs in [obsA, obsC] {
      let seen = try await obs.collect { $0.type == "source" && $0["event"]?.stringValue == "rejoined" }
      #expect(seen.last?["event"]?.stringValue == "rejoined", "\(seen)")
      #expect(!seen.contains { $0["event"]?.stringValue == "left" })
    }
    // Frames from its new node reach the old node's observers; no `left` comes later.
    try await again.send(text: frameText(2, t: 1100, [(1, "began", 10, 10)]))
    try await again.send(text: frameText(3, t: 1180, [(1, "ended", 10, 10)]))
    let later = try await obsA.collect { $0["gesture"]?.stringValue == "tap" }
    #expect(later.last?["source"]?.stringValue == id, "the tap from B reached A's observer: \(later)")
    #expect(!later.contains { $0["event"]?.stringValue == "left" }, "\(later)")
    for ws in [obsA, obsC, again] { await ws.close() }
  }

  /// SIGKILL of the node holding a source: within 5 s the other nodes' observers get
  /// `cancelled` for its active gestures. The `left` at the resume window's end, and the exact
  /// times of both, are the core's rules (`ClusterGapTests`, on virtual time).
  @Test func aNodeKilledWithoutAWordHasItsGesturesCancelledOnTheOthers() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (obs, _) = try await nodes[1].observer("kill")
    let (phone, id) = try await nodes[0].source("kill", hello: Self.hello)
    // A pan under way: began, moved far.
    try await phone.send(text: frameText(1, t: 1000, [(1, "began", 100, 100)]))
    for k in 1...6 {
      try await phone.send(text: frameText(1 + k, t: 1000 + Double(k) * 16, [(1, "moved", 100 + Double(k) * 20, 100)]))
    }
    let began = try await obs.collect { $0["gesture"]?.stringValue == "pan" && $0["state"]?.stringValue == "began" }
    #expect(began.last?["state"]?.stringValue == "began", "\(began)")
    let killedAt = ContinuousClock.now
    nodes[0].kill()
    let cancelled = try await obs.collect(
      until: { $0["gesture"]?.stringValue == "pan" && $0["state"]?.stringValue == "cancelled" },
      timeout: TestTime.seconds(6))
    #expect(cancelled.last?["state"]?.stringValue == "cancelled", "\(cancelled)")
    #expect(ContinuousClock.now - killedAt < TestTime.seconds(5), "cancelled within 5 s")
    #expect(cancelled.last?["source"]?.stringValue == id)
    await obs.close()
  }

  @Test func aSourceOfAKilledNodeResumesElsewhere() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B", "C"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (obs, _) = try await nodes[1].observer("kill2", query: "raw=1")
    let (phone, id) = try await nodes[0].source("kill2", hello: Self.hello)
    try await phone.send(text: frameText(1, t: 1000, [(1, "began", 100, 100)]))
    let first = try await obs.collect { $0.type == "touches" && $0["seq"]?.intValue == 1 }
    #expect(first.last?["seq"]?.intValue == 1, "the first frame reached B: \(first)")
    try await nodes[2].waitForRemoteSources(1)
    nodes[0].kill()
    // Resumed on C before B can know A died.
    let again = try await WebSocketConnection.connect(nodes[2].url("/v1/source/kill2"))
    try await again.send(
      text: #"{"type":"hello","device":{"name":"Phone","width":400,"height":800},"resume":"\#(id)"}"#)
    let welcome = try await again.nextJSON(type: "welcome")
    #expect(welcome["source"]?.stringValue == id && welcome["resumed"]?.boolValue == true, "\(welcome)")
    let seen = try await obs.collect { $0["event"]?.stringValue == "rejoined" }
    #expect(seen.last?["event"]?.stringValue == "rejoined", "\(seen)")
    // C's frames reach B's raw observer, as C's source sent them, in order.
    let sent = [
      frameText(2, t: 1500, [(1, "began", 10, 10)]), frameText(3, t: 1516, [(1, "moved", 12, 10)]),
      frameText(4, t: 1532, [(1, "ended", 14, 10)]),
    ]
    for text in sent { try await again.send(text: text) }
    let got = try await obs.collect { $0.type == "touches" && $0["seq"]?.intValue == 4 }
    // The source lives on at C: no `left` (that A's death, noticed later, changes nothing of
    // it is the core's rule: `ClusterGapTests`).
    #expect(!got.contains { $0["event"]?.stringValue == "left" }, "\(got)")
    let touches = got.filter { $0.type == "touches" && ($0["seq"]?.intValue ?? 0) >= 2 }
    #expect(touches.map { $0["source"]?.stringValue } == [id, id, id], "\(got)")
    #expect(touches.map { $0["seq"]?.intValue } == [2, 3, 4], "\(got)")
    #expect(touches.map { $0["touches"]?.arrayValue?.first?["phase"]?.stringValue } == ["began", "moved", "ended"])
    #expect(touches.map { $0["touches"]?.arrayValue?.first?["x"]?.doubleValue } == [10, 12, 14])
    for ws in [obs, again] { await ws.close() }
  }

  /// Redis dies and comes back (restart), or stalls past the command deadline (SIGSTOP, then
  /// SIGCONT), mid-stream: both nodes see the bus go down and come back by themselves; local
  /// observers never notice; remote ones get `dropped` before anything that followed the gap,
  /// and delivered + dropped ≥ sent. The outage lasts until both nodes have said the bus is
  /// down, and frames are sent all the while, so it always loses something to report.
  @Test(arguments: ["restart", "pause"])
  func redisLostMidStreamIsAGapReportedNeverSilent(_ how: String) async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (local, _) = try await nodes[0].observer("gap", query: "raw=1")
    let (remote, _) = try await nodes[1].observer("gap", query: "raw=1")
    let (phone, _) = try await nodes[0].source("gap", hello: Self.hello)
    // Frames every 10 ms until cancelled; the number of the last one sent.
    let sender = Task {
      var seq = 0
      var pacer = Pacer(every: .milliseconds(10))
      while !Task.isCancelled {
        seq += 1
        try await phone.send(text: frameText(seq, t: Double(seq) * 10, [(1, seq == 1 ? "began" : "moved", 50, 50)]))
        try? await pacer.next()
      }
      return seq
    }
    // The stream reaches B before the outage.
    var onRemote = try await remote.collect { $0.type == "touches" && ($0["seq"]?.intValue ?? 0) >= 20 }
    #expect(onRemote.last?["seq"]?.intValue ?? 0 >= 20, "\(onRemote)")
    if how == "restart" { redis.kill() } else { redis.pause() }
    try await busOfEveryNode(nodes, is: false)
    for node in nodes {
      let metrics = try await node.metrics()
      #expect(metricValue(metrics, "touchrelay_bus_up") == 0, "\(node.name): \(metrics)")
    }
    // Frames go on while it is down: what B misses meanwhile is found as a gap afterwards.
    let readWhenDown = metricValue(try await nodes[0].metrics(), "touchrelay_frames_in_total") ?? 0
    try await eventually("A reads 10 more frames with the bus down (\(how))") {
      (metricValue(try await nodes[0].metrics(), "touchrelay_frames_in_total") ?? 0) >= readWhenDown + 10
    }
    if how == "restart" { try await redis.start() } else { redis.resume() }
    try await busOfEveryNode(nodes, is: true)
    for node in nodes {
      let metrics = try await node.metrics()
      #expect(metricValue(metrics, "touchrelay_bus_up") == 1, "\(node.name): \(metrics)")
      #expect((metricValue(metrics, "touchrelay_bus_reconnects_total") ?? 0) >= 1, "\(node.name): \(metrics)")
    }
    // The stream reaches B again, then ends with one more frame.
    let lastBefore = onRemote.last?["seq"]?.intValue ?? 0
    let after = try await remote.collect(
      until: { $0.type == "touches" && ($0["seq"]?.intValue ?? 0) > lastBefore }, timeout: TestTime.seconds(10))
    #expect(after.last?.type == "touches", "nothing reached B after the bus came back: \(after)")
    onRemote += after
    sender.cancel()
    let total = try await sender.value + 1
    try await phone.send(text: frameText(total, t: Double(total) * 10, [(1, "ended", 50, 50)]))
    let onLocal = try await local.collect(until: { $0["seq"]?.intValue == total }, timeout: TestTime.seconds(10))
    onRemote += try await remote.collect(until: { $0["seq"]?.intValue == total }, timeout: TestTime.seconds(10))
    let localSeqs = onLocal.filter { $0.type == "touches" }.compactMap { $0["seq"]?.intValue }
    #expect(localSeqs == Array(1...total), "local observers are not touched by the bus")
    #expect(!onLocal.contains { $0.type == "dropped" })
    var delivered = 0
    var dropped = 0
    var expected = 1
    var toldSinceLast = false
    for m in onRemote {
      if m.type == "dropped" {
        dropped += m["count"]?.intValue ?? 0
        toldSinceLast = true
      } else if m.type == "touches", let seq = m["seq"]?.intValue {
        #expect(seq >= expected, "out of order: \(seq) after \(expected - 1)")
        if seq > expected {
          #expect(toldSinceLast, "seq \(seq) after a gap from \(expected) came before its dropped")
        }
        toldSinceLast = false
        delivered += 1
        expected = seq + 1
      }
    }
    #expect(onRemote.last?["seq"]?.intValue == total, "the stream's end did not reach B")
    #expect(delivered + dropped >= total, "delivered \(delivered) + dropped \(dropped) < sent \(total)")
    #expect(delivered < total, "the outage lost something (else the test shows nothing)")
    #expect(dropped > 0, "the loss was told")
    let metrics = try await nodes[1].metrics()
    #expect((metricValue(metrics, "touchrelay_bus_gaps_total") ?? 0) >= 1, "\(metrics)")
    for ws in [local, remote, phone] { await ws.close() }
  }

  /// Polls every node's `/healthz` until its bus is `up` (or down), within the time a stall
  /// takes to be noticed (the 2 s command deadline, checked once a second) and a reconnect
  /// (backoff up to 2 s) with room to spare.
  private func busOfEveryNode(_ nodes: [TestNode], is up: Bool) async throws {
    try await eventually("every node's bus is \(up ? "back up" : "down")") {
      for node in nodes where try await node.clusterView().up != up { return false }
      return true
    }
  }

  @Test func garbageOnTheBusIsCountedAndIgnored() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (obs, _) = try await nodes[1].observer("junk", query: "raw=1")
    for junk in ["hello", "TRB1", "TRN1H", String(repeating: "\u{1}", count: 300), "TRB1\u{1}A"] {
      try await redis.cli(["PUBLISH", "test:node:A", junk])
      try await redis.cli(["PUBLISH", "test:nodes", junk])
    }
    let (phone, _) = try await nodes[0].source("junk", hello: Self.hello)
    try await phone.send(texts: Self.tapFrames(2))
    let got = try await obs.collect { $0["seq"]?.intValue == 4 }
    #expect(got.filter { $0.type == "touches" }.count == 4)
    let metrics = try await nodes[1].metrics()
    let malformed = metrics.split(separator: "\n").filter { $0.hasPrefix("touchrelay_bus_malformed_total") }
      .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
    #expect(malformed >= 10, "\(metrics)")
    let viewA = try await nodes[0].clusterView()
    let viewB = try await nodes[1].clusterView()
    #expect(viewA.up && viewB.up)
    for ws in [obs, phone] { await ws.close() }
  }

  @Test func aCleanlyStoppedNodesSourcesLeaveAndTheOthersGoOn() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B", "C"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (obs, _) = try await nodes[1].observer("term", query: "raw=1")
    let (pa, idA) = try await nodes[0].source("term", hello: Self.hello)
    let (pc, idC) = try await nodes[2].source("term", hello: Self.hello)
    _ = try await obs.collect { $0["event"]?.stringValue == "joined" && $0["source"]?.stringValue == idC }
    nodes[0].signal(SIGTERM)
    let left = try await obs.collect { $0["event"]?.stringValue == "left" }
    #expect(left.last?["source"]?.stringValue == idA, "\(left)")
    #expect(try await ShutdownTests.exited(nodes[0].process))
    try await pc.send(texts: Self.tapFrames(1))
    let more = try await obs.collect { $0.type == "touches" && $0["seq"]?.intValue == 2 }
    #expect(more.filter { $0.type == "touches" }.count == 2)
    let view = try await nodes[1].clusterView()
    #expect(view.up && !view.nodes.contains("A"), "the goodbye takes A off the list: \(view)")
    for ws in [obs, pa, pc] { await ws.close() }
  }
}

/// The deployment page's first layout: two nodes on one machine and one port (`--reuse-port`),
/// one Redis. Whichever node the kernel hands a connection to, the session is the same.
@Suite(.serialized) struct SharedPortClusterTests {
  @Test func twoNodesOnOnePortServeOneSession() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let port = try freeLoopbackPort()
    let shared = ["--port", "\(port)", "--reuse-port"]
    var nodes: [TestNode] = []
    defer { withExtendedLifetime(nodes) {} }
    for name in ["A", "B"] { nodes.append(try await TestNode(name, redis: redis, extra: shared)) }
    #expect(nodes.allSatisfy { $0.port == port })
    // Both up and meshed, as seen through the shared port (each answer is one node's, which
    // the kernel picks: on a busy machine it may take a while to pick both).
    var views: [String: Bool] = [:]
    try await eventually("both nodes answer on the shared port, bus up, each having heard the other", timeout: TestTime.seconds(20)) {
      let h = try await nodes[0].health()
      if let node = h["cluster"]?["node"]?.stringValue {
        let heard = h["cluster"]?["nodes"]?.arrayValue?.count ?? 0
        views[node] = h["cluster"]?["bus"]?.stringValue == "up" && heard == 1
      }
      return views == ["A": true, "B": true]
    }
    try await waitUntilSubscribed(to: ["A", "B"], count: 1, redis: redis)
    // Observers until both nodes have some (the kernel spreads them).
    var observers: [(WebSocketConnection, String)] = []
    while Set(observers.map(\.1)).count < 2, observers.count < 40 {
      let (ws, welcome) = try await nodes[0].observer("shared", query: "raw=1")
      observers.append((ws, welcome["cluster"]?["node"]?.stringValue ?? "?"))
    }
    #expect(Set(observers.map(\.1)) == ["A", "B"])
    let (phone, id) = try await nodes[0].source("shared", hello: ClusterTests.hello)
    try await phone.send(texts: ClusterTests.tapFrames(2))
    for (ws, node) in observers {
      let got = try await ws.collect { $0.type == "touches" && $0["seq"]?.intValue == 4 }
      #expect(
        got.filter { $0.type == "touches" && $0["source"]?.stringValue == id }.count == 4,
        "an observer on \(node) missed touches of \(id): \(got)")
      await ws.close()
    }
    await phone.close()
  }
}

import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// `frames` through the running server over real WebSockets: several samples in one message
/// are taken one by one, as if each came in a `frame` of its own.
@Suite struct FramesOverWebSocketTests {
  /// A `frames` message; samples are (seq, t, touches as (id, phase, x, y)).
  static func framesText(_ samples: [(Int, Double, [(Int, String, Double, Double)])]) -> String {
    let list = samples.map { s in
      let touches = s.2.map { #"{"id":\#($0.0),"phase":"\#($0.1)","x":\#($0.2),"y":\#($0.3)}"# }
      return #"{"seq":\#(s.0),"t":\#(s.1),"touches":[\#(touches.joined(separator: ","))]}"#
    }
    return #"{"type":"frames","frames":[\#(list.joined(separator: ","))]}"#
  }

  /// The `touches` messages among `received`, parsed.
  static func touches(_ received: [Received]) throws -> [JSONValue] {
    try received.compactMap(\.text).filter { $0.contains(#""type":"touches""#) }.map { try JSONValue.parse($0) }
  }

  @Test func rawObserversGetOneTouchesPerSample() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, welcome) = try await relay.observer("fr", query: "raw=1")
    #expect(welcome["limits"]?["maxFramesPerMessage"]?.intValue == 64)
    let (src, id) = try await relay.source("fr")
    try await src.send(
      text: Self.framesText([
        (1, 10, [(1, "began", 5, 5)]), (2, 14, [(1, "moved", 6, 5)]), (3, 18, [(1, "moved", 7, 5)]),
        (4, 22, [(1, "moved", 8, 5)]),
      ]))
    var got: [JSONValue] = []
    let deadline = ContinuousClock.now + TestTime.seconds(5)
    while got.count < 4 && ContinuousClock.now < deadline {
      got += try Self.touches(try await watcher.receiveAll(for: .milliseconds(100)))
    }
    #expect(got.map { $0["seq"]?.intValue } == [1, 2, 3, 4])
    #expect(got.map { $0["t"]?.doubleValue } == [10, 14, 18, 22])
    #expect(got.allSatisfy { $0["source"]?.stringValue == id })
    #expect(Set(got.map { $0["rt"]?.doubleValue }).count == 1, "one message, one receive time")
    #expect(got.last?["touches"]?[0]?["x"]?.doubleValue == 8)
    #expect(try await src.jsonUntilCaughtUp().isEmpty, "a good batch is answered with nothing")
  }

  @Test func aBadSampleInTheMiddleGetsItsOwnErrorAndTheRestCount() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("bad", query: "raw=1")
    let (src, _) = try await relay.source("bad")
    try await src.send(
      text: #"{"type":"frames","frames":[{"seq":1,"t":0,"touches":[{"id":1,"phase":"began","x":1,"y":1}]},"#
        + #"{"seq":2,"t":4,"touches":[{"id":1,"phase":"moved","x":NaN,"y":1}]},"#
        + #"{"seq":3,"t":8,"touches":[{"id":1,"phase":"moved","x":3,"y":1}]}]}"#)
    let error = try await src.nextJSON(type: "error")
    #expect(error["code"]?.stringValue == "non_finite")
    #expect(error["seq"]?.intValue == 2)
    var seqs: [Int?] = []
    let deadline = ContinuousClock.now + TestTime.seconds(5)
    while seqs.count < 2 && ContinuousClock.now < deadline {
      seqs += try Self.touches(try await watcher.receiveAll(for: .milliseconds(100))).map { $0["seq"]?.intValue }
    }
    #expect(seqs == [1, 3])
  }

  @Test func moreThanMaxFramesPerMessageIsRefusedWhole() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("many", query: "raw=1")
    let (src, _) = try await relay.source("many")
    try await src.send(text: Self.framesText((1...65).map { ($0, Double($0), []) }))
    let error = try await src.nextJSON(type: "error")
    #expect(error["code"]?.stringValue == "too_many_frames")
    #expect(try await watcher.jsonUntilCaughtUp().filter { $0.type == "touches" }.isEmpty, "part of it was taken")
    // The connection stays open and the same samples, 64 of them, are taken.
    try await src.send(text: Self.framesText((1...64).map { ($0, Double($0), []) }))
    var n = 0
    let deadline = ContinuousClock.now + TestTime.seconds(5)
    while n < 64 && ContinuousClock.now < deadline { n += try await watcher.touchesReceived(for: .milliseconds(100)) }
    #expect(n == 64)
  }

  @Test func maxMessageBytesStillApplies() async throws {
    let relay = try TestRelay { $0.limits.maxMessageBytes = 1024 }
    defer { relay.stop() }
    let (src, _) = try await relay.source("bytes")
    try await src.send(text: Self.framesText((1...40).map { ($0, Double($0), [(1, "moved", 100, 100)]) }))
    #expect(try await src.expectClose().code == 1009)
  }

  /// A pan whose samples come coalesced: began and moves in one message, the lift in the next.
  @Test func gesturesAreRecognizedAcrossSamples() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("pan")
    let (src, _) = try await relay.source("pan")
    var samples: [(Int, Double, [(Int, String, Double, Double)])] = [(1, 0, [(1, "began", 100, 300)])]
    for i in 1...8 { samples.append((1 + i, Double(i) * 4, [(1, "moved", 100 + Double(i) * 10, 300)])) }
    try await src.send(text: Self.framesText(samples))
    try await src.send(text: Self.framesText([(10, 40, [(1, "moved", 185, 300)]), (11, 44, [(1, "ended", 190, 300)])]))
    var states: [String] = []
    var translation: Double?
    let deadline = ContinuousClock.now + TestTime.seconds(5)
    while states.last != "ended" && ContinuousClock.now < deadline {
      for m in try await watcher.receiveAll(for: .milliseconds(100)).compactMap(\.text) {
        let j = try JSONValue.parse(m)
        guard j["type"]?.stringValue == "gesture", j["gesture"]?.stringValue == "pan" else { continue }
        states.append(j["state"]?.stringValue ?? "?")
        translation = j["translation"]?["x"]?.doubleValue
      }
    }
    #expect(states.first == "began")
    #expect(states.last == "ended")
    #expect(translation == 90)
  }

  /// A 240 Hz pen at the default --max-fps: a reconnect's backlog of three full messages in one
  /// flush, then 4 samples per message at 60 messages a second. Nothing is refused.
  @Test func a240HzPenIsNotRefused() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("pen", query: "raw=1")
    let (src, _) = try await relay.source("pen")
    var seq = 0
    func samples(_ n: Int) -> [(Int, Double, [(Int, String, Double, Double)])] {
      (0..<n).map { _ in
        seq += 1
        return (seq, Double(seq) * 1000 / 240, [(1, seq == 1 ? "began" : "moved", Double(seq % 390), 400)])
      }
    }
    try await src.send(texts: (0..<3).map { _ in Self.framesText(samples(64)) })
    var pacer = Pacer(every: .microseconds(16_667))
    for _ in 1...120 {
      try await src.send(text: Self.framesText(samples(4)))
      try await pacer.next()
    }
    var mirrored = 0
    var errors: [String] = []
    let deadline = ContinuousClock.now + TestTime.seconds(5)
    while mirrored < seq && ContinuousClock.now < deadline {
      mirrored += try await watcher.touchesReceived(for: .milliseconds(100))
      errors += try await src.receiveAll(for: .milliseconds(1)).compactMap(\.text)
    }
    #expect(mirrored == 3 * 64 + 120 * 4)
    #expect(errors.isEmpty, "\(errors)")
  }
}

import OSC
import TUIO
import Testing
import TouchProtocol

/// TUIO 1.1 and 2.0 bundles as protocol sources and frames: phases from the alive set, the
/// frame id rules of reference clients, the source cap, the timeout, refusals; and the round
/// trip through `TUIOCursorWriter`.
@Suite struct TUIOInputTests {
  static func cur(_ args: OSCArgument...) -> OSCMessage { OSCMessage("/tuio/2Dcur", args) }

  /// A TUIO 1.1 cursor bundle: source, alive, set per finger, fseq.
  static func tuio11(_ fseq: Int32, _ fingers: [(Int32, Double, Double)], source: String? = "pad@10.0.0.2") -> [UInt8] {
    var m: [OSCMessage] = []
    if let source { m.append(cur(.string("source"), .string(source))) }
    m.append(OSCMessage("/tuio/2Dcur", [.string("alive")] + fingers.map { .int32($0.0) }))
    for f in fingers {
      m.append(
        cur(
          .string("set"), .int32(f.0), .float32(Float(f.1)), .float32(Float(f.2)), .float32(0), .float32(0), .float32(0)
        ))
    }
    m.append(cur(.string("fseq"), .int32(fseq)))
    return OSCEncoder.encode(.bundle(OSCBundle(messages: m)))
  }

  /// A TUIO 2.0 pointer bundle: frm, ptr per finger, alv.
  static func tuio20(_ frame: Int32, _ fingers: [(Int32, Double, Double)], dim: (Int, Int)? = nil) -> [UInt8] {
    var frm: [OSCArgument] = [.int32(frame), .timeTag(1)]
    if let dim {
      frm += [.int32(Int32(bitPattern: UInt32(dim.0) << 16 | UInt32(dim.1))), .string("table:0@0x0A000003")]
    }
    var m = [OSCMessage("/tuio2/frm", frm)]
    for f in fingers {
      m.append(
        OSCMessage(
          "/tuio2/ptr",
          [
            .int32(f.0), .int32(0), .int32(0), .float32(Float(f.1)), .float32(Float(f.2)), .float32(0), .float32(0),
            .float32(0.01), .float32(0),
          ]))
    }
    m.append(OSCMessage("/tuio2/alv", fingers.map { .int32($0.0) }))
    return OSCEncoder.encode(.bundle(OSCBundle(messages: m)))
  }

  struct Feed {
    var input: TUIOInput
    var events: [TUIOEvent] = []

    init(_ settings: TUIOSettings = TUIOSettings()) { input = TUIOInput(settings: settings) }

    mutating func send(_ bytes: [UInt8], host: String = "10.0.0.2", port: Int = 50000, at rt: Double) -> [TUIOEvent] {
      events.removeAll()
      bytes.withUnsafeBytes { input.receive($0, host: host, port: port, at: rt, into: &events) }
      return events
    }

    mutating func frame(_ bytes: [UInt8], port: Int = 50000, at rt: Double) -> Frame? {
      for e in send(bytes, port: port, at: rt) { if case .frame(_, let f) = e { return f } }
      return nil
    }
  }

  func phases(_ f: Frame?) -> [String] { (f?.touches ?? []).map { "\($0.id):\($0.phase.rawValue)" } }

  @Test func aTUIO11SenderJoinsAndItsAliveSetBecomesPhases() {
    var feed = Feed()
    let first = feed.send(Self.tuio11(1, [(5, 0.5, 0.25)]), at: 1000)
    #expect(first.count == 2)
    guard case .joined(let key, let hello) = first[0] else {
      Issue.record("no join")
      return
    }
    #expect(key == "pad@10.0.0.2 from 10.0.0.2")
    #expect(hello.device == Device(name: "pad@10.0.0.2", width: 1920, height: 1080))
    guard case .frame(_, let f1) = first[1] else {
      Issue.record("no frame")
      return
    }
    #expect(f1.touches == [TouchPoint(id: 5, phase: .began, x: 960, y: 270)])
    #expect(f1.seq == 1 && f1.t == 1000)
    #expect(
      phases(feed.frame(Self.tuio11(2, [(5, 0.5, 0.25), (6, 0.1, 0.1)]), at: 1016)) == ["5:stationary", "6:began"])
    #expect(
      phases(feed.frame(Self.tuio11(3, [(5, 0.6, 0.25), (6, 0.1, 0.1)]), at: 1032)) == ["5:moved", "6:stationary"])
    let ended = feed.frame(Self.tuio11(4, [(6, 0.1, 0.1)]), at: 1048)
    #expect(phases(ended) == ["5:ended", "6:stationary"])
    #expect(ended?.touches.first?.x == Double(Float(0.6)) * 1920)
    #expect(phases(feed.frame(Self.tuio11(5, []), at: 1064)) == ["6:ended"])
    // Idle: nothing down, nothing ended, no frame.
    #expect(feed.send(Self.tuio11(6, []), at: 1080).isEmpty)
    #expect(feed.input.counters.frames == 5)
  }

  @Test func staleFramesAreDroppedRedundantOnesReadForTheirAliveSetRestartsTaken() {
    var feed = Feed()
    _ = feed.send(Self.tuio11(10, [(1, 0.5, 0.5), (2, 0.2, 0.2)]), at: 0)
    #expect(feed.send(Self.tuio11(10, [(1, 0.9, 0.9), (2, 0.2, 0.2)]), at: 10).isEmpty)
    #expect(feed.send(Self.tuio11(9, [(1, 0.9, 0.9), (2, 0.2, 0.2)]), at: 20).isEmpty)
    #expect(feed.input.counters.staleFrames == 2)
    // fseq -1: finger 2 left; finger 1's position in it is not taken.
    let redundant = feed.frame(Self.tuio11(-1, [(1, 0.9, 0.9)]), at: 30)
    #expect(phases(redundant) == ["2:ended", "1:stationary"])
    #expect(redundant?.touches.last?.x == 960)
    #expect(feed.input.counters.redundantFrames == 1)
    // A jump back of more than 100: a restarted sender, read.
    #expect(feed.send(Self.tuio11(5000, [(1, 0.5, 0.5)]), at: 40).isEmpty == false)
    #expect(phases(feed.frame(Self.tuio11(3, [(1, 0.6, 0.5)]), at: 50)) == ["1:moved"])
    #expect(feed.input.counters.restarts == 1)
  }

  @Test func aTUIO20SenderWithItsDimensions() {
    var feed = Feed()
    let events = feed.send(Self.tuio20(1, [(7, 0.5, 0.5)], dim: (800, 600)), at: 0)
    guard case .joined(let key, let hello)? = events.first else {
      Issue.record("no join")
      return
    }
    #expect(key == "table:0@0x0A000003 from 10.0.0.2")
    #expect(hello.device.width == 800 && hello.device.height == 600)
    guard case .frame(_, let f)? = events.last else {
      Issue.record("no frame")
      return
    }
    // The ptr's radius (0.01 of the surface) is the touch's, in points; its press of 0 is none.
    #expect(
      f.touches == [
        TouchPoint(id: 7, phase: .began, x: 400, y: 300, details: ContactDetails(radius: Double(Float(0.01)) * 800))
      ])
    // Without dim and source: keyed by address and port, surface from the settings.
    var other = Feed()
    guard case .joined(let k2, let h2)? = other.send(Self.tuio20(1, [(1, 0, 1)]), port: 4000, at: 0).first else {
      Issue.record("no join")
      return
    }
    #expect(k2 == "10.0.0.2:4000" && h2.device.width == 1920)
    #expect(phases(other.frame(Self.tuio20(2, []), port: 4000, at: 10)) == ["1:ended"])
    #expect(other.send(Self.tuio20(2, [(3, 0, 0)]), port: 4000, at: 20).isEmpty)
    #expect(other.input.counters.staleFrames == 1)
  }

  @Test func theSourceCapRefusesNewSendersAndTheTimeoutFreesTheirPlace() {
    var s = TUIOSettings()
    s.maxSources = 2
    s.timeoutMs = 3000
    var feed = Feed(s)
    for port in 1...3 { _ = feed.send(Self.tuio11(1, [(1, 0.5, 0.5)], source: nil), port: port, at: Double(port)) }
    #expect(feed.input.senderCount == 2)
    #expect(feed.input.counters.refusedSources == 1)
    #expect(feed.input.nextExpiry == 3001)
    var gone: [TUIOEvent] = []
    feed.input.expire(at: 3001.5, into: &gone)
    #expect(gone == [.left(sender: "10.0.0.2:1")])
    feed.input.expire(at: 3003, into: &gone)
    #expect(gone.count == 2 && feed.input.senderCount == 0 && feed.input.counters.timeouts == 2)
  }

  @Test func malformedAndForeignPacketsAreCountedByKind() {
    var feed = Feed()
    let bad: [[UInt8]] = [
      [1, 2, 3],
      OSCEncoder.encode(.message(OSCMessage("/other/app", [.int32(1)]))),
      OSCEncoder.encode(.message(OSCMessage("/tuio/2Dcur", [.string("set"), .int32(1), .string("x")]))),
      OSCEncoder.encode(
        .message(
          OSCMessage(
            "/tuio/2Dcur",
            [.string("set"), .int32(1), .float32(1e9), .float32(0), .float32(0), .float32(0), .float32(0)]))),
      OSCEncoder.encode(.message(OSCMessage("/tuio/2Dcur", [.int32(3)]))),
      OSCEncoder.encode(.bundle(OSCBundle(messages: [Self.cur(.string("alive")), OSCMessage("/tuio2/alv", [])]))),
    ]
    for b in bad { #expect(feed.send(b, at: 0).isEmpty) }
    #expect(
      feed.input.counters.malformed == ["truncated": 1, "unknown_address": 1, "bad_arguments": 3, "mixed_versions": 1])
    #expect(feed.input.senderCount == 0)
    // Objects and blobs only: skipped, no source.
    let objects = OSCEncoder.encode(.message(OSCMessage("/tuio/2Dobj", [.string("alive")])))
    #expect(feed.send(objects, at: 0).isEmpty)
    #expect(feed.input.counters.skippedMessages == 1 && feed.input.senderCount == 0)
  }

  @Test func fingersBeyondTheLimitAreNotBegun() {
    var s = TUIOSettings()
    s.maxFingers = 2
    var feed = Feed(s)
    #expect(phases(feed.frame(Self.tuio11(1, [(1, 0, 0), (2, 0, 0), (3, 0, 0)]), at: 0)) == ["1:began", "2:began"])
    #expect(feed.input.counters.fingersOverLimit == 1)
    #expect(
      phases(feed.frame(Self.tuio11(2, [(2, 0, 0), (3, 0, 0)]), at: 10)) == ["1:ended", "2:stationary", "3:began"])
  }

  /// TUIO in, protocol frames, TUIO out, TUIO in again: every position within 1e-6 of the
  /// surface, and the same phases.
  @Test func aRoundTripKeepsPositionsWithinAMillionthOfTheSurface() {
    var first = Feed()
    var second = Feed()
    var writer = TUIOCursorWriter(sourceName: "touchrelay:s1@relay")
    let device = Device(name: "pad@10.0.0.2", width: 1920, height: 1080)
    var g = SystemRandomNumberGenerator()
    var fingers: [(Int32, Double, Double)] = []
    for i in 1...200 {
      // Fingers come and go at random, and move.
      if fingers.count < 5 && Bool.random(using: &g) {
        fingers.append((Int32(i), .random(in: 0...1), .random(in: 0...1)))
      }
      if !fingers.isEmpty && Int.random(in: 0..<6, using: &g) == 0 { fingers.removeFirst() }
      fingers = fingers.map { ($0.0, min(1, max(0, $0.1 + .random(in: -0.01...0.01))), $0.2) }
      guard let f = first.frame(Self.tuio11(Int32(i), fingers), at: Double(i) * 16) else { continue }
      let out = OSCEncoder.encode(.bundle(writer.bundle(for: f, device: device)))
      let again = second.frame(out, at: Double(i) * 16)
      let a = f.touches.filter { $0.phase != .stationary }
      let b = (again?.touches ?? []).filter { $0.phase != .stationary }
      #expect(a.map(\.phase) == b.map(\.phase), "frame \(i)")
      for (p, q) in zip(a, b) {
        #expect(abs(p.x - q.x) / 1920 <= 1e-6 && abs(p.y - q.y) / 1080 <= 1e-6, "frame \(i): \(p) \(q)")
      }
    }
  }

  @Test func theWriterSendsVelocityAndNewSessionIDs() {
    var writer = TUIOCursorWriter(sourceName: "touchrelay:s1@relay")
    let d = Device(name: "x", width: 100, height: 100)
    _ = writer.bundle(for: Frame(seq: 1, t: 0, touches: [TouchPoint(id: 1, phase: .began, x: 0, y: 0)]), device: d)
    let b = writer.bundle(
      for: Frame(seq: 2, t: 500, touches: [TouchPoint(id: 1, phase: .moved, x: 50, y: 0)]), device: d)
    #expect(
      b.messages[2].arguments == [
        .string("set"), .int32(1), .float32(0.5), .float32(0), .float32(1), .float32(0), .float32(2),
      ])
    #expect(b.messages[3].arguments == [.string("fseq"), .int32(2)])
    _ = writer.bundle(for: Frame(seq: 3, t: 600, touches: [TouchPoint(id: 1, phase: .ended, x: 50, y: 0)]), device: d)
    let again = writer.bundle(
      for: Frame(seq: 4, t: 700, touches: [TouchPoint(id: 1, phase: .began, x: 0, y: 0)]), device: d)
    #expect(again.messages[1].arguments == [.string("alive"), .int32(2)])
  }
}

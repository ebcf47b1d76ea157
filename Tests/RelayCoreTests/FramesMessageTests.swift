import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// `frames`: a source's samples in one message are taken as if each came in a `frame` of its
/// own, in order: validated, rate-limited, mirrored and fed to the engine one by one.
@Suite struct FramesMessageTests {
  /// A `frames` message of samples (seq, t, touches as (id, phase, x, y)).
  static func frames(_ samples: [(Int, Double, [(Int, String, Double, Double)])]) -> String {
    let list = samples.map { s in
      let touches = s.2.map { #"{"id":\#($0.0),"phase":"\#($0.1)","x":\#($0.2),"y":\#($0.3)}"# }
      return #"{"seq":\#(s.0),"t":\#(s.1),"touches":[\#(touches.joined(separator: ","))]}"#
    }
    return #"{"type":"frames","frames":[\#(list.joined(separator: ","))]}"#
  }

  @Test func rawObserversGetOneTouchesPerSampleInOrder() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s")
    let (src, id) = try h.source("s")
    _ = h.take(obs)
    h.send(
      Self.frames([
        (1, 100, [(1, "began", 10, 10)]), (2, 104, [(1, "moved", 12, 10)]), (3, 108, [(1, "moved", 14, 10)]),
      ]), from: src, at: 5)
    let touches = h.take(obs).filter { $0.type == "touches" }
    #expect(touches.map { $0["seq"]?.number } == [1, 2, 3])
    #expect(touches.map { $0["t"]?.number } == [100, 104, 108])
    #expect(touches.allSatisfy { $0["source"]?.string == id && $0["rt"]?.number == 5 })
    #expect(touches[2]["touches"]?.array?.first?["x"]?.number == 14)
    #expect(h.take(src).isEmpty)
    #expect(h.core.counters.framesIn == 3)
    h.finish()
  }

  @Test func aBadSampleGetsItsOwnErrorAndTheRestCount() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s")
    _ = h.take(obs)
    let text =
      #"{"type":"frames","frames":[{"seq":1,"t":5,"touches":[{"id":1,"phase":"began","x":1,"y":1}]},"#
      + #"{"seq":2,"t":6,"touches":[{"id":1,"phase":"wiggled","x":1,"y":1}]},"#
      + #"{"seq":1,"t":7,"touches":[{"id":1,"phase":"moved","x":2,"y":1}]},"#
      + #"{"seq":4,"t":2,"touches":[{"id":1,"phase":"moved","x":2,"y":1}]},"#
      + #"{"seq":5,"t":8,"touches":[{"id":1,"phase":"moved","x":3,"y":1}]}]}"#
    h.send(text, from: src, at: 1)
    let errors = h.take(src)
    #expect(errors.map { $0["code"]?.string } == ["unknown_phase", "seq_not_increasing", "time_backwards"])
    #expect(errors.map { $0["seq"]?.number } == [2, 1, 4])
    #expect(h.take(obs).filter { $0.type == "touches" }.map { $0["seq"]?.number } == [1, 5])
    h.finish()
  }

  @Test func anUnreadableMessageGetsOneErrorAndNothingElse() throws {
    let h = CoreHarness { $0.limits.maxFramesPerMessage = 2 }
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s")
    _ = h.take(obs)
    h.send(Self.frames([(1, 0, []), (2, 1, []), (3, 2, [])]), from: src, at: 1)
    h.send(#"{"type":"frames","frames":{"seq":4,"t":3,"touches":[]}}"#, from: src, at: 2)
    #expect(h.take(src).map { $0["code"]?.string } == ["too_many_frames", "wrong_type"])
    #expect(h.take(obs).isEmpty)
    // Nothing of them was taken: seq 1 is still new.
    h.send(Self.frames([(1, 0, []), (2, 1, [])]), from: src, at: 3)
    #expect(h.take(src).isEmpty)
    #expect(h.take(obs).filter { $0.type == "touches" }.count == 2)
    h.finish()
  }

  @Test func framesBeforeHelloAndFromAnObserverAreRefusedOnce() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s")
    let src = h.opened(h.core.open(.source(session: "s"), address: "10.0.0.2", at: 0))
    h.send(Self.frames([(1, 0, []), (2, 1, [])]), from: src, at: 1)
    #expect(h.take(src).map { $0["code"]?.string } == ["no_hello"])
    h.send(Self.frames([(1, 0, []), (2, 1, [])]), from: obs, at: 1)
    #expect(h.take(obs).map { $0["code"]?.string } == ["not_allowed"])
    h.finish()
  }

  /// The engine sees the samples as frames: a pan begins and moves within one message.
  @Test func gesturesAreRecognizedAcrossSamples() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, _) = try h.source("s")
    var samples: [(Int, Double, [(Int, String, Double, Double)])] = [(1, 0, [(1, "began", 100, 100)])]
    for i in 1...8 { samples.append((1 + i, Double(i) * 4, [(1, "moved", 100 + Double(i) * 10, 100)])) }
    h.send(Self.frames(samples), from: src, at: 1)
    h.send(Self.frames([(10, 40, [(1, "ended", 180, 100)])]), from: src, at: 20)
    let pans = h.take(obs).filter { $0.type == "gesture" && $0["gesture"]?.string == "pan" }
    #expect(pans.first?["state"]?.string == "began")
    #expect(pans.last?["state"]?.string == "ended")
    #expect(pans.last?["translation"]?["x"]?.number == 80)
    h.finish()
  }

  /// A timer armed by a `frames` message maps device time to server time with the newest
  /// sample's offset: a long press (500 ms) begun at t = 0 in a message whose last sample is
  /// t = 12, arriving at server time 100, is due at 500 + (100 − 12) = 588, not 600.
  @Test func aTimerIsArmedFromTheNewestSample() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, _) = try h.source("s")
    _ = h.take(obs)
    h.send(
      Self.frames([
        (1, 0, [(1, "began", 200, 200)]), (2, 4, [(1, "stationary", 200, 200)]),
        (3, 8, [(1, "stationary", 200, 200)]), (4, 12, [(1, "stationary", 200, 200)]),
      ]), from: src, at: 100)
    h.tick(at: 587.5)
    let early = h.take(obs).filter { $0["gesture"]?.string == "longpress" }
    #expect(early.isEmpty)
    h.tick(at: 588)
    let began = h.take(obs).filter { $0["gesture"]?.string == "longpress" }
    #expect(began.map { $0["state"]?.string } == ["began"])
    #expect(began.first?["t"]?.number == 500)
    h.finish()
  }

  /// Each sample takes one token of `maxFramesPerSecond`; the excess is refused and reported
  /// as for frames.
  @Test func samplesCountAgainstTheRateOneByOne() throws {
    let h = CoreHarness { $0.limits.maxFramesPerSecond = 10 }
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s")
    _ = h.take(obs)
    h.send(Self.frames((1...16).map { ($0, Double($0), []) }), from: src, at: 1)
    #expect(h.take(obs).filter { $0.type == "touches" }.map { $0["seq"]?.number } == (1...10).map { Double($0) })
    let errors = h.take(src)
    #expect(errors.map { $0["code"]?.string } == ["rate_limited"])
    #expect(errors.first?["message"]?.string?.contains("1 frame dropped") == true)
    h.tick(at: 101)
    let late = h.take(src)
    #expect(late.first?["message"]?.string?.contains("5 frames dropped") == true)
    #expect(late.first?["seq"]?.number == 16)
    h.finish()
  }

  /// A 240 Hz pen at the default rate: four samples per 60 Hz display frame for 10 s, the
  /// messages arriving bunched by the network, after catching up a reconnect's backlog of
  /// three full messages at once. Nothing is refused and reading is never paused.
  @Test func a240HzPenAtTheDefaultRateIsNotRefused() throws {
    let h = CoreHarness()
    #expect(Limits().maxFramesPerSecond >= 2 * 240)
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s")
    _ = h.take(obs)
    _ = h.takeActions()
    var seq = 0
    var t = 0.0
    func samples(_ n: Int) -> [(Int, Double, [(Int, String, Double, Double)])] {
      (0..<n).map { _ in
        seq += 1
        t += 1000.0 / 240
        return (seq, t, [(1, seq == 1 ? "began" : "moved", Double(seq % 300), 100)])
      }
    }
    var mirrored = 0
    // The backlog: 3 × 64 samples in one burst.
    for _ in 0..<3 {
      h.send(Self.frames(samples(64)), from: src, at: 10)
      mirrored += h.take(obs).filter { $0.type == "touches" }.count
    }
    // Then 10 s at 240 Hz, 4 samples per message, delivered in bursts of 6 messages every 100 ms.
    for burst in 0..<100 {
      for _ in 0..<6 {
        h.send(Self.frames(samples(4)), from: src, at: 110 + Double(burst) * 100)
        mirrored += h.take(obs).filter { $0.type == "touches" }.count
      }
    }
    #expect(h.take(src).isEmpty)
    #expect(!h.takeActions().contains { $0.isPause })
    #expect(mirrored == 3 * 64 + 100 * 6 * 4)
    h.finish()
  }

  /// A flood is counted in samples: a source refused more samples within 100 ms than its
  /// limit allows in a second is paused, however few messages carried them.
  @Test func aFloodOfSamplesIsPaused() throws {
    let h = CoreHarness { $0.limits.maxFramesPerSecond = 10 }
    let (src, _) = try h.source("s")
    _ = h.takeActions()
    // 10 pass, 10 refused: not yet a flood.
    h.send(Self.frames((1...20).map { ($0, Double($0), []) }), from: src, at: 1)
    #expect(!h.takeActions().contains { $0.isPause })
    h.send(Self.frames([(21, 21, [])]), from: src, at: 2)
    #expect(h.takeActions().filter(\.isPause).count == 1)
  }
}

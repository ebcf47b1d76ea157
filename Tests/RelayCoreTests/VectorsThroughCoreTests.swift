import ConformanceSupport
import RelayCore
import Testing

/// Every conformance vector (protocol/vectors) through the relay's core on virtual time: the
/// observer's `gesture` and `scene` messages and the source's `error`s must match the vector's
/// `expect` with the engine runner's matcher and equal what the engine produces when fed the
/// same vector directly, every number exactly (the vector's own tolerance against `expect`).
///
/// The harness is the core's only clock (`CoreHarness.passTime`): a frame with device time `t`
/// arrives at server time `join + t`, so every frame's clock offset is the join's; each
/// wake-up the core asks for fires at exactly the time it asked for; `advance: T` is the
/// driver's tick at `join + T`; `close: T` a clean close then. So every timer falls where the
/// server would place it with no delay anywhere, and a close's device time is the vector's.
/// The live server (`VectorsThroughServerTests`) runs the vectors whose timers it can place on
/// a real clock; this runs them all, none skipped, none run twice.
@Suite struct VectorsThroughCoreTests {
  static let vectors = ConformanceVector.loadAll()
  /// Server time of the source's join (device time 0 before its first frame).
  static let join = 1000.0

  @Test func vectorsAreFound() {
    #expect(Self.vectors.count >= 40)
  }

  @Test(arguments: vectors)
  func vectorThroughCoreMatchesExpectAndEngine(_ v: ConformanceVector) throws {
    let direct = try VectorRunner.run(v)
    var outcome = try Self.run(v)
    // Which events a close produced is a property of the vector; the engine run knows it.
    outcome.closeEvents = direct.closeEvents
    let problems = VectorRunner.check(v, outcome)
    #expect(problems.isEmpty, "\(v.file) through the core: \(problems.joined(separator: "\n"))")
    let differences = VectorRunner.compare(direct, outcome, closeTimeTolerance: 0)
    #expect(differences.isEmpty, "\(v.file): the core differs from the engine: \(differences.joined(separator: "\n"))")
  }

  /// The comparison can fail: every vector with its expectation changed (its last event 1 ms
  /// later, or an event more where it expects none) is caught through the core.
  @Test func everyVectorWithAChangedExpectationFails() throws {
    for v in Self.vectors {
      guard case .object(var root) = v.json, case .object(var expect)? = root["expect"] else {
        Issue.record("\(v.file): no expect")
        continue
      }
      var events = expect["events"]?.array ?? []
      if case .object(var last)? = events.last, let t = last["t"]?.number {
        last["t"] = .number(t + 1)
        events[events.count - 1] = .object(last)
      } else {
        events.append(.object(["gesture": .string("tap")]))
      }
      expect["events"] = .array(events)
      root["expect"] = .object(expect)
      let changed = ConformanceVector(file: v.file, json: .object(root))
      #expect(!VectorRunner.check(changed, try Self.run(changed)).isEmpty, "\(v.file): a changed expectation passed")
    }
  }

  /// A timer falls where the core asked for it, not later: a single tap's deadline (300 ms
  /// after the release) with nothing else happening comes with the wake-up, its event
  /// stamped with the deadline's device time and the wake-up's server time.
  @Test func aTimerFiresAtTheWakeUpItAskedFor() throws {
    let h = CoreHarness(at: 0)
    let (observer, _) = try h.observer("clock", ObserverFilter())
    let (source, _) = try h.source("clock", at: Self.join)
    h.sendOnClock(h.frame(1, t: 0, [(1, "began", 50, 50)]), from: source, at: Self.join)
    h.sendOnClock(h.frame(2, t: 50, [(1, "ended", 50, 50)]), from: source, at: Self.join + 50)
    let wake = try #require(h.wake)
    h.passTime(to: wake - 0.001)
    #expect(h.take(observer).filter { $0.type == "gesture" }.isEmpty, "the tap came before its wake-up")
    h.passTime(to: wake + 0.001)
    let tap = try #require(h.take(observer).first { $0.type == "gesture" })
    #expect(tap["gesture"]?.string == "tap")
    #expect(tap["rt"]?.number == wake)
    #expect(tap["t"]?.number.map { Self.join + $0 + RelayCore.deadlineSlackMs } == wake)
    h.finish()
  }

  /// Runs `v` through a core on virtual time; what its observer and source got.
  static func run(_ v: ConformanceVector) throws -> VectorOutcome {
    let h = CoreHarness(at: 0) { $0.limits.maxFingers = v.maxFingers }
    let session = "vector"
    var filter = ObserverFilter()
    filter.predict = v.predict
    let (observer, _) = try h.observer(session, filter)
    let source = h.opened(h.core.open(.source(session: session), address: "10.0.0.2", at: join))
    h.sendOnClock(try v.hello().message.description, from: source, at: join)
    var outcome = VectorOutcome()
    var lastScene = JSON.null
    var sourceMessages: [JSON] = []
    var closed = false
    func take() {
      for m in h.take(observer) {
        switch m.type {
        case "gesture": outcome.events.append((try? VectorRunner.gestureFields(m)) ?? m)
        case "scene":
          lastScene = m["state"] ?? .null
          // The state sent when the source joins carries no seq and is no change.
          if m["seq"] != nil { outcome.scenes.append(lastScene) }
        case "source": continue
        case "touches" where v.predict != nil: outcome.predicted.append((try? VectorRunner.predictedEntries(m)) ?? m)
        default: Issue.record("\(v.file): unexpected message to the observer: \(m)")
        }
      }
      sourceMessages += h.take(source)
    }
    take()
    for step in try v.parsedSteps() {
      let now = h.core.now
      switch step.kind {
      case .frame, .frames:
        let t = try #require(step.latestFrameTime)
        h.sendOnClock(try #require(step.message).description, from: source, at: max(now, join + t))
      case .control, .hello:
        h.sendOnClock(try #require(step.message).description, from: source, at: now)
      case .advance(let t):
        h.tickOnClock(at: max(now, join + t))
      case .close(let t):
        h.closeOnClock(source, at: max(now, join + t))
        closed = true
      }
      take()
    }
    outcome.finalScene = lastScene
    if !closed {
      // The scene at the end as a new observer's welcome gives it.
      let (_, welcome) = try h.observerOnClock(session, ObserverFilter())
      if let scenes = welcome["scenes"]?.array {
        outcome.finalScene = scenes.first?["state"] ?? .null
        #expect(outcome.finalScene == lastScene, "\(v.file): a late observer's welcome disagrees with the last scene message")
      }
    }
    outcome.errors = sourceMessages.filter { $0.type == "error" }.map { $0.removing("type") }
    h.finish()
    return outcome
  }
}

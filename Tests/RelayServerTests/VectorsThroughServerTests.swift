import ConformanceSupport
import Foundation
import GestureEngine
import NIOCore
import NIOPosix
import NIOWebSocket
import Synchronization
import Testing
import TouchProtocol
import TouchRelayClient

// Every conformance vector (protocol/vectors) replayed through the running server: the
// observer's `gesture` and `scene` messages and the source's `error`s must match the vector's
// `expect` with the engine runner's matcher (ConformanceSupport), and equal what the engine
// produces when fed the same vector directly.
//
// How the replay is made deterministic: the server handles everything one socket read holds
// before any timer can fire, and maps an engine deadline (device ms) onto its own clock with
// the offset (receive time − `t`) of the frame that was latest when it armed the timer. So
// the steps go out in segments cut at each `advance` and `close`, each segment in one flush;
// an `advance: T` becomes a wait until the server's timers due by T have fired (plus a
// margin), a `close: T` a clean close once T has come. `ServerPlan` works the schedule out
// beforehand and, with a copy of the engine, refuses a vector whose timers would fire too
// close to the moment a segment reaches the server to tell which comes first: such a vector
// is not run here (`timedVectors`), never matched more loosely. Every vector, those
// included, runs through the server's core on virtual time with exact timer placement
// (RelayCoreTests' `VectorsThroughCoreTests`).

/// Conformance vectors through the live server, compared with the vectors and the engine.
@Suite struct VectorsThroughServerTests {
  static let vectors = ConformanceVector.loadAll()
  /// The vectors whose timers the plan can place on the live server's clock; the others run
  /// through the core on virtual time only (`VectorsThroughCoreTests`).
  static let timedVectors = vectors.filter { v in (try? ServerPlan(v)).map { $0.skipReason == nil } ?? true }

  /// Vectors on which the server is known to disagree with the vector and the engine, and
  /// why. Each stays checked: the test fails once the disagreement goes away.
  static let knownDisagreements: [String: String] = [:]

  /// Runs of one vector at most, when the machine's load broke the plan's timing.
  static let attempts = 3

  @Test func vectorsAreFound() {
    #expect(Self.vectors.count >= 40)
    // The live run stays the rule, the core's alone the exception.
    #expect(Self.timedVectors.count * 2 > Self.vectors.count, "only \(Self.timedVectors.count) vectors timed")
  }

  @Test(arguments: timedVectors)
  func vectorThroughServerMatchesExpectAndEngine(_ v: ConformanceVector) async throws {
    let direct = try VectorRunner.run(v)
    let plan = try ServerPlan(v)
    try #require(plan.skipReason == nil)
    let closeTimeTolerance = plan.closeTimeTolerance
    let relay = try SharedRelays.relay(maxFingers: v.maxFingers)
    var outcome = VectorOutcome()
    var timing = ServerTiming()
    // The plan keeps every timer `ServerPlan.safety` away from the steps around it; a machine
    // so loaded that the server handled a step later than that may legitimately order a timer
    // and a step the other way. Such a run proves nothing either way and is run again.
    for attempt in 1...Self.attempts {
      (outcome, timing) = try await SharedRelays.slots.run {
        try await ServerReplay(plan: plan, relay: relay, session: "vector-\(v.name.prefix(44))-\(attempt)")
          .run(expectedMessages: direct.events.count + direct.scenes.count, closeEvents: direct.closeEvents)
      }
      guard let why = timing.inconclusive, attempt < Self.attempts else { break }
      Issue.record("\(v.file): \(why), run again", severity: .warning)
    }
    // Which events a close produced is a property of the vector; the engine run knows it.
    outcome.closeEvents = direct.closeEvents
    #expect(timing.closeProblems.isEmpty, "\(timing.closeProblems.joined(separator: "\n"))")
    let problems = VectorRunner.check(v, outcome, closeTimeTolerance: closeTimeTolerance)
    let differences = VectorRunner.compare(
      direct, outcome, closeTimeTolerance: closeTimeTolerance)
    let known = Self.knownDisagreements[v.file]
    withKnownIssue(Comment(rawValue: known ?? "")) {
      #expect(
        problems.isEmpty,
        "\(v.file) through the server: \(problems.joined(separator: "\n"))")
      #expect(
        differences.isEmpty,
        "\(v.file): the server differs from the engine: \(differences.joined(separator: "\n"))")
    } when: {
      known != nil
    }
  }

  /// The plan refuses what it cannot place: here the single tap's timer (due at t=350) would
  /// fire in the server just as the frame at t=350 arrives after `advance: 300`.
  @Test func planRefusesATimerTooCloseToTheNextSegment() throws {
    func vector(advance: Double) throws -> ConformanceVector {
      let text = """
        {"name":"plan","hello":{"device":{"name":"p","width":390,"height":844}},"steps":[
        {"frame":{"seq":1,"t":0,"touches":[{"id":1,"phase":"began","x":50,"y":50}]}},
        {"frame":{"seq":2,"t":50,"touches":[{"id":1,"phase":"ended","x":50,"y":50}]}},
        {"advance":\(advance)},
        {"frame":{"seq":3,"t":350,"touches":[{"id":2,"phase":"began","x":300,"y":600}]}}],
        "expect":{"events":[]}}
        """
      return ConformanceVector(file: "plan.json", json: try JSON.parse(Array(text.utf8)))
    }
    let tight = try ServerPlan(vector(advance: 300))
    #expect(tight.skipReason?.contains("t=350.0") == true, "\(tight.skipReason ?? "no reason")")
    let loose = try ServerPlan(vector(advance: 200))
    #expect(loose.skipReason == nil)
    #expect(loose.segments.map(\.at) == [0, 150 + ServerPlan.margin])
  }
}

/// One server for all vectors (another for a vector with its own finger limit), and a cap
/// on how many vectors replay at once so the timing stays honest on a small machine.
enum SharedRelays {
  private static let relays = Mutex<[Int: TestRelay]>([:])
  static let slots = Slots(4)
  /// The replays' sources get an event loop of their own: on the shared one, other tests'
  /// floods and 100,000-element messages held up a replay's timed steps by hundreds of ms.
  static let sourceLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

  static func relay(maxFingers: Int) throws -> TestRelay {
    try relays.withLock { all in
      if let r = all[maxFingers] { return r }
      let r = try TestRelay { $0.limits.maxFingers = maxFingers }
      all[maxFingers] = r
      return r
    }
  }
}

/// A counting semaphore for async work.
actor Slots {
  private var free: Int
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(_ count: Int) { free = count }

  func run<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
    await acquire()
    defer { release() }
    return try await work()
  }

  private func acquire() async {
    if free > 0 {
      free -= 1
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  private func release() {
    if waiting.isEmpty {
      free += 1
    } else {
      waiting.removeFirst().resume()
    }
  }
}

/// When each part of a vector goes to the server, in ms after the source's `welcome` (the
/// server's clock for the source starts there: before any frame, device time 0 is the
/// join). Worked out by replaying the vector through a `SourceEngine` and following the
/// one timer the server keeps armed per source.
struct ServerPlan: Sendable {
  /// Steps that go out in one flush, at `at`.
  struct Segment: Sendable {
    var messages: [JSON] = []
    var at = 0.0
  }

  /// Waited after the server's timers for an `advance` should have fired.
  static let margin = 40.0
  /// A timer that must not fire before a segment arrives must be due at least this long
  /// after the segment goes out.
  static let safety = 40.0

  let hello: JSON
  /// The vector's `predict`: its observer asks for `?predict=MS`.
  let predict: Int?
  private(set) var segments: [Segment] = []
  /// When each frame goes out, by `seq`.
  private(set) var frameAt: [Int64: Double] = [:]
  /// When the source closes (a `close` step), else nil.
  private(set) var closeAt: Double?
  /// Without a close: observation must end by then, since the server fires the engine's
  /// next pending timer, which the vector never advances to, soon after. Nil when none.
  private(set) var observeUntil: Double?
  /// When every timer the last `advance` asks for has fired: extra messages are looked for
  /// from then on.
  private(set) var settledAt = 0.0
  private(set) var skipReason: String?
  /// How much later than its device time the plan sends the close (it waits for the timers of
  /// an `advance` before it, plus `margin`).
  private(set) var closeDelay = 0.0

  /// How far a close's events' `t` may be from the vector's close time. They carry the
  /// server's estimate of the device time at the close: the latest frame's `t` plus the server
  /// time since that frame (checked exactly by `ServerTiming.closeEvent`). That is the
  /// vector's time plus `closeDelay`, plus how far the server's handling of the close strayed
  /// from the plan relative to that frame, which a run counts as conclusive only below
  /// `safety` (`ServerTiming.inconclusive`; such a run is made again).
  var closeTimeTolerance: Double { closeDelay + Self.safety }

  init(_ v: ConformanceVector) throws {
    let first = try v.hello()
    hello = first.message
    predict = v.predict
    var replay = EngineReplay(hello: first.hello, maxFingers: v.maxFingers)
    var clock = ServerClock()
    var current: Segment?
    for step in try v.parsedSteps() {
      if closeAt != nil { refuse("steps after a close") }
      switch step.kind {
      case .advance(let t):
        current.map { segments.append($0) }
        current = nil
        try replay.apply(step)
        clock.advance(to: t, engine: replay.engine)
      case .close(let t):
        current.map { segments.append($0) }
        current = nil
        let at = max(clock.now, clock.serverTime(t))
        closeDelay = at - clock.serverTime(t)
        // The engine fires no timer at a close: none may fire in the server before it.
        if let d = clock.armed, d.fires < at + Self.safety {
          refuse(
            "a timer due at t=\(d.deadline) fires about \(Int(d.fires - at)) ms from the close at t=\(t)"
          )
        }
        closeAt = at
        try replay.apply(step)
      case .frame, .frames, .control, .hello:
        if current == nil {
          if let why = clock.beforeSegment(starting: step, engine: replay.engine) { refuse(why) }
          current = Segment(at: clock.now)
        }
        for f in step.frames { frameAt[f.seq] = clock.now }
        current?.messages.append(step.message ?? .null)
        try replay.apply(step)
        clock.handled(step, engine: replay.engine)
      }
    }
    current.map { segments.append($0) }
    settledAt = clock.now
    if closeAt == nil, let d = clock.armed {
      observeUntil = d.fires - Self.safety
      if d.fires - settledAt < 2 * Self.safety {
        refuse(
          "a timer the vector never advances to (t=\(d.deadline)) fires \(Int(d.fires - settledAt)) ms after the last step: no time to watch for extra messages"
        )
      }
    }
  }

  private mutating func refuse(_ why: String) {
    if skipReason == nil { skipReason = why }
  }
}

/// The server's timer for one source, as the plan follows it (times in ms after the
/// welcome).
struct ServerClock {
  /// The deadline the server has armed and when it fires.
  var armed: (deadline: Double, fires: Double)?
  /// When the next segment may go out.
  private(set) var now = 0.0
  private var lastT = 0.0
  private var lastSent = 0.0

  /// Where device time `t` falls on the server's clock with the latest frame's offset.
  func serverTime(_ t: Double) -> Double { lastSent + t - lastT }

  /// After a frame or control the server re-arms when the engine's deadline changed, with
  /// the offset of the latest frame; a repeated hello does not re-arm.
  mutating func handled(_ step: VectorStep, engine: SourceEngine) {
    if let t = step.latestFrameTime {
      lastT = t
      lastSent = now
    }
    if case .hello = step.kind { return }
    rearm(engine)
  }

  /// `advance: T`: wait until every timer due by T has fired, the armed one (on its own
  /// offset) included.
  mutating func advance(to t: Double, engine: SourceEngine) {
    var due = serverTime(t)
    if let a = armed, a.deadline <= t {
      due = max(due, a.fires)
      armed = nil
    }
    rearm(engine)
    now = max(now, due + ServerPlan.margin)
  }

  /// A segment starting with `first` goes out at `now`. A timer firing before it arrives is
  /// harmless when the segment starts with a frame later than the timer's deadline: the
  /// engine fires it first too, inside `process`. Any other timer must fire well after.
  /// Returns why the segment cannot be placed, if it cannot.
  mutating func beforeSegment(starting first: VectorStep, engine: SourceEngine) -> String? {
    var probe = engine
    while let a = armed, a.fires < now + ServerPlan.safety {
      guard let t = first.frameTime, a.deadline < t else {
        let what =
          first.frameTime.map { "the frame at t=\($0)" }
          ?? "a \(first.message?["type"]?.string ?? "message")"
        return
          "a timer due at t=\(a.deadline) fires about \(Int(a.fires - now)) ms from when \(what) reaches the server"
      }
      // It fires before the segment, as the engine would fire it before the frame; the
      // server re-arms the next deadline on the latest offset.
      _ = probe.advance(to: a.deadline)
      armed = probe.nextDeadline.map { ($0, max(a.fires, serverTime($0))) }
    }
    return nil
  }

  private mutating func rearm(_ engine: SourceEngine) {
    guard engine.nextDeadline != armed?.deadline else { return }
    armed = engine.nextDeadline.map { ($0, serverTime($0)) }
  }
}

/// Runs one plan over real connections and collects what the observer and the source got.
struct ServerReplay {
  let plan: ServerPlan
  let relay: TestRelay
  let session: String

  /// Once the expected number of messages arrived, how long more to wait for extra ones.
  static let quiet = Duration.milliseconds(150)
  /// How long the expected messages may take after the last step at most. Only a failing run
  /// waits this long (the others stop `quiet` after the last expected message), and the
  /// suite's first seconds, every test starting at once on two cores, have held one up 3 s.
  static let patience = TestTime.seconds(10)

  /// `closeEvents`: indexes of the events the close produces, whose `t` is checked here.
  func run(expectedMessages: Int, closeEvents: Set<Int> = []) async throws -> (VectorOutcome, ServerTiming) {
    // `raw=1`: each accepted frame's `touches` carries its `t` and the server's `rt`.
    let (observer, _) = try await relay.observer(session, query: plan.predict.map { "predict=\($0)" } ?? "raw=1")
    let source = try await WebSocketConnection.connect(
      relay.url("/v1/source/\(session)"), group: SharedRelays.sourceLoop)
    try await source.send(text: plan.hello.description)
    _ = try await source.nextJSON(type: "welcome")
    let start = ContinuousClock.now
    let loopStart = NIODeadline.now()
    func at(_ ms: Double) -> ContinuousClock.Instant { start + .microseconds(Int64(ms * 1000)) }

    // Every step is scheduled on the source's event loop: Swift's cooperative pool (two
    // threads here) is shared with every other test, and a sleep there could wake hundreds of
    // ms late behind their work, while the event loop has a thread of its own.
    var steps: [Scheduled<Void>] = []
    for segment in plan.segments {
      let frames = segment.messages.map {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: $0.bytes))
      }
      steps.append(
        source.eventLoop.scheduleTask(deadline: loopStart + .microseconds(Int64(segment.at * 1000))) {
          for frame in frames { source.write(frame, flush: false) }
          source.flush()
        })
    }
    if let closeAt = plan.closeAt {
      var code = ByteBuffer()
      code.writeInteger(UInt16(1000))
      let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: code)
      steps.append(
        source.eventLoop.scheduleTask(deadline: loopStart + .microseconds(Int64(closeAt * 1000))) {
          source.write(close)
        })
    }
    for step in steps { try await step.futureResult.get() }
    var sourceClosed = false
    if plan.closeAt != nil {
      // The close frame went out on time; this waits for the server to end the connection.
      await source.close()
      sourceClosed = true
    }

    var outcome = VectorOutcome()
    var lastScene = JSON.null
    var unexpected: [String] = []
    var lateWelcome: JSON?
    var timing = ServerTiming()
    let deadline = plan.observeUntil.map(at) ?? (ContinuousClock.now + Self.patience)
    var quietUntil: ContinuousClock.Instant?
    var reachedDeadline = false
    while true {
      if quietUntil == nil, outcome.events.count + outcome.scenes.count >= expectedMessages {
        quietUntil = max(ContinuousClock.now, at(plan.settledAt)) + Self.quiet
      }
      let end = min(deadline, quietUntil ?? deadline)
      let left = end - ContinuousClock.now
      guard left > .zero else {
        reachedDeadline = end == deadline
        break
      }
      let message: Received
      do {
        message = try await observer.next(timeout: left)
      } catch WebSocketClientError.timeout {
        reachedDeadline = end == deadline
        break
      }
      guard let text = message.text else {
        unexpected.append("\(message)")
        break
      }
      let json = try JSON.parse(Array(text.utf8))
      switch json["type"]?.string {
      case "touches":
        timing.frameHandled(
          t: json["t"]?.number ?? .nan, rt: json["rt"]?.number ?? .nan,
          planned: json["seq"]?.number.flatMap { plan.frameAt[Int64($0)] })
        if plan.predict != nil { outcome.predicted.append(try VectorRunner.predictedEntries(json)) }
      case "gesture":
        if closeEvents.contains(outcome.events.count) {
          timing.closeEvent(json, plan: plan, sinceStart: ContinuousClock.now - start)
        }
        outcome.events.append(try VectorRunner.gestureFields(json))
      case "scene":
        lastScene = json["state"] ?? .null
        // The state sent when the source joins carries no seq and is no change.
        if json["seq"] != nil { outcome.scenes.append(lastScene) }
      case "source":
        continue
      default:
        unexpected.append(text)
      }
    }
    if !unexpected.isEmpty {
      Issue.record("\(session): unexpected messages to the observer: \(unexpected)")
    }
    if reachedDeadline {
      timing.observationEnded(
        missing: max(0, expectedMessages - outcome.events.count - outcome.scenes.count),
        early: plan.observeUntil != nil)
    }
    outcome.finalScene = lastScene
    // The scene at the end as a new observer's welcome gives it, while the source is there
    // and before a timer the vector never advances to could fire.
    if !sourceClosed, ContinuousClock.now < deadline {
      lateWelcome = try await observerWelcome()
    }
    if let scenes = lateWelcome?["scenes"]?.array {
      outcome.finalScene = scenes.first?["state"] ?? .null
      #expect(
        outcome.finalScene == lastScene,
        "\(session): a late observer's welcome disagrees with the last scene message")
    }

    // The source's errors: everything it got before its close.
    await observer.close()
    if !sourceClosed { await source.close() }
    for message in try await source.receiveAll(for: .seconds(1)) {
      guard let text = message.text else { continue }
      let json = try JSON.parse(Array(text.utf8))
      if json["type"]?.string == "error" { outcome.errors.append(json.removing("type")) }
    }
    return (outcome, timing)
  }

  /// The `welcome` of an observer that connects now, parsed as the tests' JSON.
  private func observerWelcome() async throws -> JSON {
    let late = try await WebSocketConnection.connect(relay.url("/v1/observe/\(session)"))
    var welcome = JSON.null
    while welcome == .null {
      guard let text = try await late.next().text else { continue }
      let json = try JSON.parse(Array(text.utf8))
      if json["type"]?.string == "welcome" { welcome = json }
    }
    await late.close()
    return welcome
  }
}

/// When the server handled a replay's steps, read from the `rt` it stamps on what they
/// caused, and the rule a close's device time follows.
struct ServerTiming {
  /// How far the server's handling strayed from the plan's spacing, in ms: frames against the
  /// first one, the close against the latest frame.
  private(set) var lateness = 0.0
  /// Where the events a close produced break the close-time rule.
  private(set) var closeProblems: [String] = []
  /// Messages still missing when observation had to end, before a timer the vector never
  /// advances to (`deadlineWasEarly`) or `ServerReplay.patience` after the last step: they
  /// came later than the plan allows, so how late is unknown.
  private(set) var missingAtDeadline = 0
  private(set) var deadlineWasEarly = false
  private var first: (rt: Double, planned: Double)?
  /// The latest planned frame: when the server handled it and when the plan sent it.
  private var latest: (rt: Double, planned: Double)?
  /// The latest frame's device time and server time, planned or not.
  private var latestFrame: (t: Double, rt: Double)?

  /// Why the run proves nothing either way (the machine's load broke the plan's timing), or nil.
  var inconclusive: String? {
    if lateness >= ServerPlan.safety { return "the server handled a step \(Int(lateness)) ms off the plan" }
    if missingAtDeadline > 0 {
      return
        "\(missingAtDeadline) messages had not come when observation had to end"
        + (deadlineWasEarly ? " (before a timer the vector never advances to)" : " (\(ServerReplay.patience) after the last step)")
    }
    return nil
  }

  /// Observation ended at its deadline with `missing` messages still to come; `early`: the
  /// deadline was a timer's the vector never advances to, not `ServerReplay.patience`.
  mutating func observationEnded(missing: Int, early: Bool) {
    missingAtDeadline = missing
    deadlineWasEarly = early
  }

  /// A frame's `touches` came back; `planned` is when the plan sent it (nil if not found).
  mutating func frameHandled(t: Double, rt: Double, planned: Double?) {
    latestFrame = (t, rt)
    guard let planned else { return }
    let origin = first ?? (rt, planned)
    first = origin
    latest = (rt, planned)
    lateness = max(lateness, abs((rt - origin.rt) - (planned - origin.planned)))
  }

  /// A close's event carries the device time of the close as the server estimates it
  /// (protocol §4): the latest frame's `t` plus the server time since that frame (`rt`),
  /// never before that frame. That rule is checked exactly; how late the close was, which the
  /// machine's load decides, only within what the test itself saw pass since the first step
  /// (which catches a clock in the wrong unit).
  mutating func closeEvent(
    _ event: JSON, plan: ServerPlan, sinceStart: Duration
  ) {
    guard let t = event["t"]?.number, let rt = event["rt"]?.number else {
      return closeProblems.append("a close's event has no t or rt: \(event)")
    }
    if let closeAt = plan.closeAt, let latest {
      // Either way: early against the frame is as far off the close's time as late.
      lateness = max(lateness, abs((rt - latest.rt) - (closeAt - latest.planned)))
    }
    guard let frame = latestFrame else {
      if t != 0 { closeProblems.append("with no frame before the close, its t \(t) is not the join's, 0") }
      return
    }
    let estimate = max(frame.t + (rt - frame.rt), frame.t)
    if abs(t - estimate) > 1e-6 {
      closeProblems.append(
        "a close's t \(t) is not the latest frame's t \(frame.t) plus the server time since (\(rt - frame.rt) ms)")
    }
    let seen = Double(sinceStart.components.seconds) * 1000 + Double(sinceStart.components.attoseconds) / 1e15
    if t > frame.t + seen {
      closeProblems.append("a close's t \(t) is later than \(frame.t) + \(seen), the time the test saw pass")
    }
  }
}

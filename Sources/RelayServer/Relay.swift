import CLibWebSockets
import GestureEngine
import Logging
import TouchProtocol

/// The relay's state and rules: sessions, sources, observers, fan-out. Owned by the
/// libwebsockets service thread; nothing here is touched from any other thread.
final class Relay {
  let config: RelayConfiguration
  let logger: Logger
  let headroom = Int(tr_lws_pre())
  let decoder: MessageDecoder
  /// Shared by every writable callback (one at a time, on the service thread).
  let batch: FrameBatch
  // @exclusivity(unchecked) on the properties the per-frame path mutates in place: Swift checks
  // each such access of a class property at run time (about 2,000 instructions per frame here),
  // and these are reached from the service thread only, in accesses that never overlap.
  // Every other property keeps its checks (ARCHITECTURE.md, "Exclusivity").
  /// The messages in `batch`, counted as sent once its write succeeded (reused buffer).
  @exclusivity(unchecked) var batched: [OutgoingMessage] = []
  /// Batching peers with messages queued during the current callback (see `flushWrites`),
  /// and the list being flushed (both reused).
  @exclusivity(unchecked) var toFlush: [Connection] = []
  @exclusivity(unchecked) var flushing: [Connection] = []
  /// Lent to every source's engine in turn, so its lists stay in the cache (see `FrameScratch`).
  @exclusivity(unchecked) private var frameScratch = FrameScratch()
  let startedAt = MonotonicClock.nowMs()
  var context: OpaquePointer?

  private(set) var sessions: [String: Session] = [:]
  /// Strong references for the lifetime of each WebSocket; the wsi's user data is unretained.
  private(set) var connections: [ObjectIdentifier: Connection] = [:]
  private var nextSerial = 1
  /// Open WebSockets per client address, for the per-address limit.
  private(set) var connectionsByAddress: [String: Int] = [:]
  let metrics = RelayMetrics()
  /// Tokens and origins; replaced on SIGHUP.
  var access: AccessPolicy
  private var nextSourceNumber = 1
  /// Replay gives the recorded source its recorded id.
  var fixedSourceID: String?
  var stopping = false
  /// Set once shutdown is complete; the service loop then exits.
  var finished = false {
    didSet { if finished && !oldValue { onFinished?() } }
  }
  /// Wakes the service loop out of an event library's run call when `finished` is set.
  var onFinished: (() -> Void)?
  weak var server: RelayServer?
  /// Fires at the end of the shutdown drain.
  private(set) var shutdownTimer: RelayTimer!
  /// Armed while any departed source waits out its resume window.
  private(set) var sweepTimer: RelayTimer!
  /// With libev only: see `heartbeat()`.
  private(set) var heartbeatTimer: RelayTimer!
  /// The sources' engine deadlines, in server ms (see `DeadlineQueue` for why not a timer each).
  @exclusivity(unchecked) private var deadlines = DeadlineQueue<Connection>()
  /// Wakes the loop for the earliest deadline when nothing else does, and when it is set for.
  private(set) var wakeTimer: RelayTimer!
  private var wakeAt: Double?
  /// Flooding peers whose reading is paused, and the timer that resumes them (see
  /// `Relay.pauseReading`).
  var pausedReaders: [Connection] = []
  private(set) var resumeTimer: RelayTimer!
  var resumeAt: Double?
  /// With libev: checks the deadlines on every loop iteration.
  private(set) var loopHook: LoopHook?
  /// How long after a deadline the wake-up timer fires: a busy loop checks the queue far more
  /// often than this; an idle one is woken this much later (plus libev's rounding of its wait
  /// up to whole ms). Below the kernel's 4 ms tick a wait's timeout makes each wake-up dearer
  /// on this VM (see `DeadlineQueue`).
  static let deadlineSlackMs = 5.0
  /// Our libev loop with --event-loop libev, nil with lws' poll loop.
  let eventLoop: UnsafeMutableRawPointer?

  init(config: RelayConfiguration, logger: Logger, eventLoop: UnsafeMutableRawPointer? = nil) {
    self.config = config
    self.logger = logger
    self.eventLoop = eventLoop
    decoder = MessageDecoder(limits: config.limits)
    batch = FrameBatch(headroom: Int(tr_lws_pre()))
    access = AccessPolicy()
    let me = Unmanaged.passUnretained(self).toOpaque()
    sweepTimer = RelayTimer(loop: eventLoop, owner: me, fire: departedSweepFired)
    shutdownTimer = RelayTimer(loop: eventLoop, owner: me, fire: shutdownDeadlineFired)
    heartbeatTimer = RelayTimer(loop: eventLoop, owner: me, fire: heartbeatFired)
    wakeTimer = RelayTimer(loop: eventLoop, owner: me, fire: deadlineWakeFired)
    resumeTimer = RelayTimer(loop: eventLoop, owner: me, fire: resumeReadersFired)
    if let eventLoop { loopHook = LoopHook(loop: eventLoop, owner: me, fire: loopWillWait) }
  }

  /// libwebsockets 4.1's libev glue can leave its own timers (ping, idle hang-up, timeouts)
  /// armed late; waking its event pipe once a second makes it service whatever is due.
  func heartbeat() {
    guard eventLoop != nil, let context, !finished else { return }
    lws_cancel_service(context)
    heartbeatTimer.schedule(context, afterMilliseconds: 1000)
  }

  var connectionCount: Int { connections.count }

  func now() -> Double { MonotonicClock.nowMs() }

  // MARK: - Opening

  /// A new WebSocket peer; `wsi` is nil when replaying a recording.
  @discardableResult
  func open(wsi: OpaquePointer?, target: RequestTarget, peer: String, at rt: Double) -> Connection {
    let session = sessions[target.sessionName] ?? newSession(target.sessionName)
    let role: Connection.Role
    let filter: ObserverFilter
    let queue: ObserverQueue
    switch target {
    case .observer(_, let f):
      role = .observer
      filter = f
      queue = ObserverQueue(
        capacity: config.limits.observerQueue,
        hardLimit: config.limits.observerQueue * config.essentialOverflowFactor)
    default:
      role = .source
      filter = ObserverFilter()
      // A source only gets its welcome and errors; old errors make way for new ones.
      queue = ObserverQueue(capacity: config.maxPendingErrors, hardLimit: config.maxPendingErrors * 2)
    }
    let conn = Connection(
      wsi: wsi, serial: nextSerial, role: role, session: session, filter: filter, queue: queue,
      openedAt: rt, peer: peer)
    nextSerial += 1
    connections[ObjectIdentifier(conn)] = conn
    connectionsByAddress[peer, default: 0] += 1
    if let wsi { lws_set_opaque_user_data(wsi, Unmanaged.passUnretained(conn).toOpaque()) }
    switch role {
    case .source:
      session.sources.append(conn)
      if let dir = config.recordDirectory {
        conn.recorder = SourceRecorder(
          directory: dir, session: session.name, serial: conn.serial, config: config, rt: rt, logger: logger)
      }
    case .observer:
      session.observers.append(conn)
      sendObserverWelcome(conn)
    }
    logger.info(
      "connection open",
      metadata: [
        "conn": "\(conn.serial)", "role": "\(role.rawValue)", "session": "\(session.name)", "peer": "\(peer)",
      ])
    return conn
  }

  private func newSession(_ name: String) -> Session {
    let s = Session(name: name)
    sessions[name] = s
    return s
  }

  private func sendObserverWelcome(_ conn: Connection) {
    let sources = conn.session.activeSources.filter { conn.filter.wants(source: $0.info.id) }
    let scenes = sources.compactMap { s in s.engine.sceneState.map { (source: s.info.id, state: $0) } }
    let bytes = ServerMessage.observerWelcome(
      session: conn.session.name, sources: sources.map(\.info), scenes: scenes, limits: config.limits,
      serverTime: now(), headroom: headroom)
    enqueue(OutgoingMessage(bytes, headroom: headroom, supersedable: false), to: conn)
  }

  // MARK: - Receiving

  /// One complete text message from a peer, received at server time `rt`.
  func receive(_ bytes: UnsafeRawBufferPointer, from conn: Connection, at rt: Double) {
    conn.messagesIn += 1
    metrics.messagesIn += 1
    metrics.bytesIn += bytes.count
    conn.recorder?.message(bytes, rt: rt)
    conn.source?.engine.prefetch()
    switch decoder.decode(bytes) {
    case .failure(let e):
      sendError(e, to: conn)
    case .success(let message):
      switch (conn.role, message) {
      case (.source, _):
        handleSource(message, from: conn, rt: rt)
      case (.observer, .control(let c)):
        guard admitsControl(from: conn, at: rt) else { return }
        handleObserverControl(c, from: conn, rt: rt)
      case (.observer, _):
        sendError(ProtocolError(.notAllowed, "observers may only send 'control'"), to: conn)
      }
    }
  }

  private func handleSource(_ message: ClientMessage, from conn: Connection, rt: Double) {
    let state = conn.source
    var validator = state?.validator ?? SourceValidator()
    if let rejection = validator.accept(message) { return sendError(rejection, to: conn) }
    if case .hello(let hello) = message, let refusal = config.sceneRefusal(hello) {
      return sendError(refusal, to: conn)
    }
    state?.validator = validator
    switch message {
    case .hello(let hello):
      if let state {
        state.info.device = hello.device
        state.info.scene = hello.scene
        let out = state.engine.update(hello: hello)
        broadcastSourceEvent("updated", state.info, in: conn.session)
        deliver(out, from: conn, origin: state.origin(t: state.lastT, rt: rt))
      } else {
        join(conn, hello: hello, validator: validator, rt: rt)
      }
    case .frame(let frame):
      guard let state else { return }
      // A refused frame has advanced the validator's state, as any frame the source sent; the
      // engine treats fingers missing from the next frame as cancelled.
      guard admitsFrame(frame, from: conn, state, at: rt) else { return }
      state.lastSeq = frame.seq
      state.lastT = frame.t
      state.lastRT = rt
      state.clockOffset = rt - frame.t
      let origin = Origin(source: state.info.id, seq: frame.seq, t: frame.t, rt: rt)
      state.engine.prefetchBuffers()
      mirror(frame, origin: origin, in: conn.session)
      metrics.framesIn += 1
      // One frame in `engineTimeSampling` is timed: two clock readings and a histogram record
      // cost about a tenth of what the engine itself costs per frame.
      let timed = config.metrics && metrics.framesIn % RelayMetrics.engineTimeSampling == 1
      let started = timed ? MonotonicClock.nanoseconds() : 0
      let out = state.engine.process(frame, scratch: &frameScratch)
      if timed { metrics.engineTime.recordNanoseconds(MonotonicClock.nanoseconds() - started) }
      deliver(out, from: conn, origin: origin)
      arm(conn, state)
    case .control(let c):
      guard let state, admitsControl(from: conn, at: rt) else { return }
      applyControl(c, to: conn, state: state, rt: rt, requester: conn)
    }
  }

  private func handleObserverControl(_ c: Control, from conn: Connection, rt: Double) {
    let candidates = conn.session.sources.filter { $0.source != nil }
    let target: Connection?
    if let id = c.source {
      target = candidates.first { $0.source?.info.id == id }
    } else if candidates.count == 1 {
      target = candidates.first
    } else {
      target = nil
    }
    guard let target, let state = target.source else {
      let why =
        c.source.map { "no source '\($0.prefix(64))' in this session" }
        ?? "name the source: the session has \(candidates.count) sources"
      return sendError(ProtocolError(.unknownSource, why), to: conn)
    }
    applyControl(c, to: target, state: state, rt: rt, requester: conn)
  }

  private func applyControl(
    _ c: Control, to source: Connection, state: SourceState, rt: Double, requester: Connection
  ) {
    switch state.engine.control(c) {
    case .failure(let e): sendError(e, to: requester)
    case .success(let out):
      deliver(out, from: source, origin: state.origin(t: state.lastT, rt: rt))
      arm(source, state)
    }
  }

  private func join(_ conn: Connection, hello: Hello, validator: SourceValidator, rt: Double) {
    let session = conn.session
    var resumed = false
    let id: String
    if let wanted = hello.resume, session.departed.removeValue(forKey: wanted) != nil {
      id = wanted
      resumed = true
    } else if let fixed = fixedSourceID {
      id = fixed
    } else {
      id = "s\(nextSourceNumber)"
      nextSourceNumber += 1
    }
    let engine = config.makeProcessor(for: hello)
    let state = SourceState(
      info: SourceInfo(id: id, device: hello.device, scene: hello.scene), engine: engine,
      frameGate: RateGate(perSecond: Double(config.limits.maxFramesPerSecond), now: rt))
    state.validator = validator
    state.lastRT = rt
    conn.source = state
    conn.recorder?.joined(source: id)
    let welcome = ServerMessage.sourceWelcome(
      session: session.name, source: id, resumed: resumed, limits: config.limits, serverTime: rt,
      headroom: headroom)
    enqueue(OutgoingMessage(welcome, headroom: headroom, supersedable: false), to: conn)
    broadcastSourceEvent(resumed ? "rejoined" : "joined", state.info, in: session)
    if let scene = state.engine.sceneState {
      broadcastScene(scene, source: id, origin: nil, in: session)
    }
  }

  // MARK: - Timers

  /// Queues (or moves, or removes) the source's engine deadline, in server time. The wake-up
  /// timer follows in `serviceDeadlines`, which runs before the loop next waits.
  func arm(_ conn: Connection, _ state: SourceState) {
    guard let deadline = state.engine.nextDeadline else {
      if state.armedDeadline != nil { disarm(conn, state) }
      return
    }
    guard deadline != state.armedDeadline, context != nil else { return }
    let offset = state.clockOffset ?? (state.lastRT - state.lastT)
    state.armedDeadline = deadline
    deadlines.set(conn, due: deadline + offset)
  }

  func disarm(_ conn: Connection, _ state: SourceState) {
    deadlines.remove(conn)
    state.armedDeadline = nil
  }

  /// Fires every deadline due by now and writes what they queued, then sets the wake-up timer
  /// for the earliest one left. Runs on every loop iteration before the loop waits, and when
  /// the wake-up timer fires.
  func serviceDeadlines() {
    guard let first = deadlines.earliest, let context else { return }
    let rt = now()
    if first <= rt {
      while let conn = deadlines.popDue(rt) { timerFired(conn, at: rt) }
      flushWrites()
    }
    guard let earliest = deadlines.earliest else { return }
    // The wait's timeout is never under the slack: a wake-up set earlier that has come closer
    // than that moves out to the earliest deadline plus the slack.
    let at = earliest + Self.deadlineSlackMs
    if let wakeAt, wakeAt <= at, wakeAt - rt >= Self.deadlineSlackMs { return }
    wakeAt = at
    wakeTimer.schedule(context, afterMilliseconds: at - rt)
  }

  func wakeTimerFired() {
    wakeAt = nil
    serviceDeadlines()
  }

  /// A source's queued deadline fell due.
  func timerFired(_ conn: Connection, at rt: Double) {
    guard let deadline = conn.source?.armedDeadline else { return }
    conn.source?.armedDeadline = nil
    advance(conn, to: deadline, at: rt)
  }

  /// A source's engine deadline fell due: the event carries the deadline as its device time.
  func advance(_ conn: Connection, to deadline: Double, at rt: Double) {
    guard let state = conn.source else { return }
    conn.recorder?.timer(deadline: deadline, rt: rt)
    let out = state.engine.advance(to: deadline)
    deliver(out, from: conn, origin: state.origin(t: deadline, rt: rt))
    arm(conn, state)
  }

  // MARK: - Closing

  /// LWS_CALLBACK_CLOSED: the socket is gone; tell everyone who needs to know.
  func closed(_ conn: Connection, at rt: Double) {
    guard !conn.closed else { return }
    conn.closed = true
    conn.recorder?.close(peerCode: conn.peerCloseCode, rt: rt)
    metrics.close(conn.pendingClose.map { $0.code.rawValue } ?? conn.peerCloseCode)
    conn.recorder = nil
    let session = conn.session
    switch conn.role {
    case .observer:
      session.observers.removeAll { $0 === conn }
    case .source:
      session.sources.removeAll { $0 === conn }
      if let state = conn.source {
        disarm(conn, state)
        // The device time of the close, estimated from the latest frame's clock offset.
        let t = max(state.clockOffset.map { rt - $0 } ?? state.lastT, state.lastT)
        let out = state.engine.cancelAll(at: t)
        deliver(out, from: conn, origin: state.origin(t: t, rt: rt))
        // A clean close (1000) is a goodbye; anything else may be a dropped network.
        if conn.peerCloseCode == 1000 || stopping {
          broadcastSourceEvent("left", state.info, in: session)
        } else {
          session.departed[state.info.id] = DepartedSource(
            info: state.info, deadline: rt + config.resumeWindow * 1000)
          armSweep()
        }
      }
    }
    logger.info(
      "connection closed",
      metadata: [
        "conn": "\(conn.serial)", "role": "\(conn.role.rawValue)", "session": "\(session.name)",
        "in": "\(conn.messagesIn)", "out": "\(conn.messagesOut)", "errors": "\(conn.errorsSent)",
        "dropped": "\(conn.queue.totalDropped)", "peerClose": "\(conn.peerCloseCode.map(String.init) ?? "none")",
      ])
    conn.source = nil
    connections[ObjectIdentifier(conn)] = nil
    if let n = connectionsByAddress[conn.peer] {
      connectionsByAddress[conn.peer] = n > 1 ? n - 1 : nil
    }
    if session.isEmpty { sessions[session.name] = nil }
    if stopping && connections.isEmpty {
      finished = true
      if let context {
        shutdownTimer.cancel()
        lws_cancel_service(context)
      }
    }
  }

  private func armSweep() {
    guard let context else { return }
    let next = sessions.values.flatMap { $0.departed.values.map(\.deadline) }.min()
    guard let next else { return }
    sweepTimer.schedule(context, afterMilliseconds: next - now() + 1)
  }

  /// Departed sources whose resume window ended are gone: observers get `left`.
  func sweepDeparted() {
    let t = now()
    for session in Array(sessions.values) {
      for (id, d) in session.departed where d.deadline <= t {
        session.departed[id] = nil
        broadcastSourceEvent("left", d.info, in: session)
      }
      if session.isEmpty { sessions[session.name] = nil }
    }
    armSweep()
  }

  /// After SIGHUP: re-reads the tokens file; a bad file keeps the tokens in force.
  func checkReload() {
    guard server?.takeReloadRequest() == true, let path = config.tokensFile else { return }
    do {
      access.sessions = try AccessPolicy.loadSessionTokens(path: path)
      logger.notice("tokens reloaded", metadata: ["file": "\(path)", "sessions": "\(access.sessions.count)"])
    } catch {
      logger.error("tokens not reloaded, keeping the previous ones", metadata: ["error": "\(error)"])
    }
  }

  /// Called on the service thread after any `lws_cancel_service`.
  func checkStop() {
    guard server?.isStopRequested == true, !stopping else { return }
    stopping = true
    logger.info("shutting down", metadata: ["connections": "\(connections.count)"])
    // Every WebSocket drains its queue, then gets 1001.
    for conn in connections.values {
      close(conn, .goingAway, "server shutting down", drain: true)
    }
    if connections.isEmpty {
      finished = true
    } else if let context {
      shutdownTimer.schedule(context, afterMilliseconds: config.drainTimeout * 1000)
    }
  }

  /// At the drain deadline, anything still open is cut; the loop ends right after.
  func shutdownDeadline() {
    if connections.isEmpty || !connections.values.contains(where: { !$0.closed }) {
      finished = true
      return
    }
    logger.warning("drain deadline passed, cutting connections", metadata: ["open": "\(connections.count)"])
    for conn in connections.values {
      if let wsi = conn.wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }
    }
    // Whatever has not closed within another moment is freed with the context.
    finished = true
  }

  // MARK: - HTTP

  func healthJSON() -> [UInt8] {
    var w = JSONWriter()
    let observers = sessions.values.reduce(0) { $0 + $1.observers.count }
    let sources = sessions.values.reduce(0) { $0 + $1.sources.count }
    w.beginObject()
    w.key("status")
    w.string(stopping ? "stopping" : "ok")
    w.key("protocol")
    w.string(protocolName)
    w.key("uptime")
    w.number(((now() - startedAt) / 10).rounded() / 100)
    w.key("sessions")
    w.int(Int64(sessions.count))
    w.key("connections")
    w.int(Int64(connections.count))
    w.key("sources")
    w.int(Int64(sources))
    w.key("observers")
    w.int(Int64(observers))
    w.endObject()
    return w.bytes
  }
}

extension RequestTarget {
  var sessionName: String {
    switch self {
    case .source(let s), .observer(let s, _): return s
    case .healthz: return ""
    }
  }
}

/// Timer callbacks: each gets back the unretained object that owns the timer. Those that can
/// queue messages (the sources' deadlines, the departed sweep) flush them, as `relayCallback`
/// does after every lws callback; the shutdown deadline and the heartbeat queue nothing.
func deadlineWakeFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<Relay>.fromOpaque(owner).takeUnretainedValue().wakeTimerFired()
}

func resumeReadersFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<Relay>.fromOpaque(owner).takeUnretainedValue().resumeReaders()
}

func loopWillWait(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<Relay>.fromOpaque(owner).takeUnretainedValue().serviceDeadlines()
}

func shutdownDeadlineFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<Relay>.fromOpaque(owner).takeUnretainedValue().shutdownDeadline()
}

func heartbeatFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<Relay>.fromOpaque(owner).takeUnretainedValue().heartbeat()
}

func departedSweepFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  let relay = Unmanaged<Relay>.fromOpaque(owner).takeUnretainedValue()
  relay.sweepDeparted()
  relay.flushWrites()
}

/// The relay a wsi belongs to, from its context's user pointer.
func relayOf(_ wsi: OpaquePointer) -> Relay? {
  guard let ctx = lws_get_context(wsi), let user = lws_context_user(ctx) else { return nil }
  return Unmanaged<Relay>.fromOpaque(user).takeUnretainedValue()
}

import CLibWebSockets
import Logging
import RelayCore
import TouchProtocol

/// The libwebsockets driver of the relay core: lws callbacks become core events, core actions
/// become `lws_write`s, `lws_rx_flow_control`, closes and timers. Owned by the service thread;
/// nothing here is touched from any other thread. It decides nothing about the protocol: only
/// how and when bytes reach the sockets.
final class LWSDriver {
  let config: RelayConfiguration
  let core: RelayCore
  let logger: Logger
  let metrics: RelayMetrics
  let routes: HTTPRoutes
  let headroom = Int(tr_lws_pre())
  /// Shared by every batched write (one at a time, on the service thread).
  let batch: FrameBatch
  /// When each message in `batch` was made (`createdAt`), for the latency histogram once its
  /// write succeeded (reused). The times, not the messages: holding each message once more
  /// cost a retain and a release per delivery.
  var batchedSince: [Int64] = []
  /// Batching peers with messages queued during the current callback (see `flushWrites`),
  /// and the list being flushed (both reused).
  var toFlush: [LWSPeer] = []
  var flushing: [LWSPeer] = []
  /// The open connections by the core's `PeerID`.
  var links = PeerLinks()
  var context: OpaquePointer?
  weak var server: RelayServer?
  /// Set once the core has finished shutting down; the service loop then exits.
  private(set) var finished = false
  /// Wakes the service loop out of an event library's run call when `finished` is set.
  var onFinished: (() -> Void)?
  /// `--record`: each recording source's file.
  private var recorders: [PeerID: SourceRecorder] = [:]
  /// The wake-up the core asked for (`RelayAction.wake`), and the server time it is for.
  private(set) var wakeTimer: RelayTimer!
  private var wakeAt: Double?
  /// Once a second: see `heartbeat()`.
  private(set) var heartbeatTimer: RelayTimer!
  /// With libev, while there is a cluster bus: flushes it on every loop iteration, before the
  /// loop waits (`beforeWait`).
  private(set) var loopHook: LoopHook?
  /// Our libev loop with --event-loop libev, nil with lws' poll loop.
  let eventLoop: UnsafeMutableRawPointer?
  /// Added to the monotonic clock: zero for one process; for a cluster node, the wall clock
  /// at start, so every node's server time (`rt`, `serverTime`) is on one shared clock.
  let clockOffset: Double
  /// The cluster bus, with `--redis`.
  var bus: RedisBus? { didSet { updateLoopHook() } }
  /// `--reuse-port`: our own listening socket, and the vhost its connections are handed to
  /// (see `SharedListener`).
  var sharedListener: Int32?
  /// The listening socket's wsi, until shutdown closes it.
  var sharedListenerWSI: OpaquePointer?
  var vhost: OpaquePointer?
  /// `--trusted-proxy`: whose `X-Forwarded-For` names the client.
  let trustedProxies: TrustedProxies
  /// When an accept error was last logged (one a second at most: the socket stays readable).
  var acceptErrorLoggedAt: Double = -.infinity
  /// `--reuse-port`: a descriptor kept open to be given up when accepting runs out of them
  /// (see `refuseWithSpare`); -1 when none is held.
  var spareDescriptor: Int32 = -1
  /// A connection accepted on a descriptor this high is answered 503 (`refusesForDescriptors`).
  var descriptorCeiling = Int32.max
  /// `--tuio-udp`: the TUIO senders' socket and their sources.
  var tuio: TUIOListener?
  /// `--tuio-out`: observers sending TUIO over UDP.
  var tuioOut: TUIOOutput?
  /// The upgrade request being admitted (LWS_CALLBACK_HTTP_CONFIRM_UPGRADE), its wsi, and
  /// what its callback returns: 0 to upgrade, 1 or -1 once `.refuseUpgrade` answered it.
  private var upgrade: (request: RequestID, wsi: OpaquePointer, answer: Int32)?
  private var lastRequest: UInt64 = 0

  init(config: RelayConfiguration, access: AccessPolicy, logger: Logger, eventLoop: UnsafeMutableRawPointer?) {
    self.config = config
    self.logger = logger
    self.eventLoop = eventLoop
    var rules = config.coreConfiguration
    rules.headroom = Int(tr_lws_pre())
    rules.logLevel = logger.logLevel
    clockOffset = rules.cluster == nil ? 0 : WallClock.nowSeconds() * 1000 - MonotonicClock.nowMs()
    core = RelayCore(configuration: rules, access: access, at: MonotonicClock.nowMs() + clockOffset)
    metrics = RelayMetrics(nodeID: config.nodeID)
    // With `--no-gestures` no engine runs: timing the pass-through measured two clock readings.
    if config.metrics && config.gestures { core.engineTiming = EngineStopwatch(metrics.engineTime) }
    routes = HTTPRoutes(core: core, config: config, metrics: metrics)
    // Checked by `RelayConfiguration.validate()` before the server starts.
    trustedProxies = TrustedProxies(config.trustedProxies.compactMap { try? IPNetwork($0) })
    batch = FrameBatch(headroom: Int(tr_lws_pre()))
    let me = Unmanaged.passUnretained(self).toOpaque()
    wakeTimer = RelayTimer(loop: eventLoop, owner: me, fire: coreWakeFired)
    heartbeatTimer = RelayTimer(loop: eventLoop, owner: me, fire: heartbeatFired)
    if let eventLoop { loopHook = LoopHook(loop: eventLoop, owner: me, fire: loopWillWait) }
    updateLoopHook()
  }

  /// The loop hook runs while there is a cluster bus to flush, and costs nothing otherwise: the
  /// core's timers are settled when each event is done (`performActions`).
  private func updateLoopHook() {
    loopHook?.isActive = bus != nil
  }

  func now() -> Double { MonotonicClock.nowMs() + clockOffset }

  /// `now()` in nanoseconds (the latency metric's unit).
  func nowNanoseconds() -> Int64 { MonotonicClock.nanoseconds() + Int64(clockOffset * 1_000_000) }

  /// libwebsockets 4.1's libev glue can leave its own timers (ping, idle hang-up, timeouts)
  /// armed late; waking its event pipe once a second makes it service whatever is due. The
  /// core's time is advanced by the clock here too: its timers fire with events and the
  /// wake-up, and this bounds how late one can be to a second should a wake-up ever not come,
  /// as the loop hook that ran every iteration used to. And it runs the keep-alive
  /// (`keepAlive`), on either loop.
  func heartbeat() {
    guard let context, !finished else { return }
    if eventLoop != nil { lws_cancel_service(context) }
    heartbeatTimer.schedule(context, afterMilliseconds: 1000)
    keepAlive()
    advanceCoreByClock()
  }

  /// Before the loop waits (every iteration with libev while there is a cluster bus; after each
  /// `lws_service` on the poll loop): flushes the bus, then `advanceCoreByClock`.
  func beforeWait() {
    // One data message on the cluster bus per loop iteration at most.
    bus?.flush()
    advanceCoreByClock()
  }

  /// Advances the core's time to the clock's, when it has timers, and writes what that queued.
  private func advanceCoreByClock() {
    guard core.hasTimers else { return }
    // Also asks for the next wake-up when nothing is due yet.
    core.advance(to: now())
    if core.hasPendingActions { performActions() }
  }

  /// The wake-up the core asked for (`.wake`) fired. The loop's timer may fire a little before
  /// the time asked for (libev counts from the time it cached for the loop iteration); told of
  /// a time before its wake-up, the core would find nothing due and plan nothing, so the rest
  /// is waited out here.
  func wakeTimerFired() {
    let t = now()
    if let at = wakeAt, t < at, let context {
      wakeTimer.schedule(context, afterMilliseconds: at - t)
      return
    }
    wakeAt = nil
    core.advance(to: t)
    performActions()
  }

  // MARK: - Admission

  /// Names the upgrade request on `wsi` for `RelayCore.admit`.
  func admitting(_ wsi: OpaquePointer) -> RequestID {
    lastRequest &+= 1
    let request = RequestID(lastRequest)
    upgrade = (request, wsi, 0)
    return request
  }

  /// What the callback admitting `request` returns, once the core's actions are carried out.
  func admitted(_ request: RequestID) -> Int32 {
    defer { upgrade = nil }
    guard let upgrade, upgrade.request == request else { return 0 }
    return upgrade.answer
  }

  // MARK: - Carrying out the core's actions

  /// Carries out what the core asked for, then writes to the peers with output (see `write`).
  /// Runs when every callback (or timer) that reached the core ends.
  func performActions() {
    repeat {
      // Deadlines due by the event's time fire now, and a timer it set or cleared plans the
      // wake-up again (`advance()`, at the event's time): at the end of each event rather than
      // in a hook run on every loop iteration (two per frame), which cost more than the rest
      // of the timers.
      core.advance()
      // Only when there are any: handing over `perform` retained the driver for the call.
      if core.hasActions { core.drainActions(perform) }
      core.drainOutputs { peer in
        // A closure, not the method: `write` handed over as a value retained the driver.
        guard with(peer, { write($0) }) == nil else { return }
        // Peers without a connection: TUIO out's observers, TUIO senders' sources.
        if tuioOut?.drain(peer, self) != true { tuio?.drain(peer, self) }
      }
      flushWrites()
    } while core.hasPendingActions || core.timersUnsettled
  }

  private func perform(_ action: RelayAction) {
    switch action {
    case .pauseReading(let peer):
      with(peer) { _ = lws_rx_flow_control($0.wsi, 0) }
    case .resumeReading(let peer):
      with(peer) { _ = lws_rx_flow_control($0.wsi, 1) }
    case .kill(let peer):
      with(peer) { lws_set_timeout($0.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }
    case .wake(let at):
      wakeAt = at
      if let context { wakeTimer.schedule(context, afterMilliseconds: at - core.now) }
    case .finished:
      finish()
    case .log(let line):
      logger.log(level: line.level, "\(line.message)", metadata: line.metadata)
    case .record(let peer, let entry):
      record(entry, of: peer)
    case .busSubscribe(let node):
      bus?.subscribe(node: node)
    case .busUnsubscribe(let node):
      bus?.unsubscribe(node: node)
    case .busNotice(let bytes):
      bus?.publishNotice(bytes)
    case .refuseUpgrade(let request, let response):
      // Only the request being admitted can still be answered.
      guard var u = upgrade, u.request == request else { return }
      u.answer = response.send(on: u.wsi) ? 1 : -1
      upgrade = u
    case .answerClose(let peer, let code, let reason):
      with(peer) { link in
        sendClose(on: link.wsi, code, reason)
        link.answeredClose = true
      }
    }
  }

  /// Runs `body` with the connection of `peer`, if it has one; `body`'s result, or nil. The
  /// wsi holds the connection: no reference counting here (a retain and a release per
  /// delivery otherwise), and the table is not accessed while `body` runs (it may close one).
  @inline(__always) @discardableResult
  func with<T>(_ peer: PeerID, _ body: (LWSPeer) -> T) -> T? {
    guard let link = links[peer] else { return nil }
    return link._withUnsafeGuaranteedRef(body)
  }

  private func finish() {
    guard !finished else { return }
    bus?.goodbye()
    bus?.stop()
    finished = true
    onFinished?()
    if let context { lws_cancel_service(context) }
  }

  private func record(_ entry: RecordEntry, of key: PeerID) {
    switch entry {
    case .opened(let session, let serial, let rt):
      guard let dir = config.recordDirectory else { return }
      recorders[key] = SourceRecorder(
        directory: dir, session: session, serial: serial, config: core.configuration, rt: rt, logger: logger)
    case .joined(let source): recorders[key]?.joined(source: source)
    case .message(let bytes, let rt): recorders[key]?.message(bytes, rt: rt)
    case .timer(let deadline, let rt): recorders[key]?.timer(deadline: deadline, rt: rt)
    case .close(let code, let rt):
      recorders[key]?.close(peerCode: code, rt: rt)
      recorders[key] = nil
    }
  }

  // MARK: - Operations

  /// After SIGHUP: re-reads the tokens file and the JWT key files; a bad file keeps what it
  /// gave in force (the other may still change).
  func checkReload() {
    guard server?.takeReloadRequest() == true else { return }
    if let path = config.tokensFile {
      do {
        var policy = core.access
        policy.sessions = try TokensFile.loadSessionTokens(path: path)
        core.replaceAccess(policy)
        logger.notice("tokens reloaded", metadata: ["file": "\(path)", "sessions": "\(policy.sessions.count)"])
      } catch {
        logger.error("tokens not reloaded, keeping the previous ones", metadata: ["error": "\(error)"])
      }
    }
    reloadJWTKeys()
  }

  /// The JWT key files again; open connections keep going until their own tokens expire.
  private func reloadJWTKeys() {
    guard !config.jwtKeyFiles.isEmpty else { return }
    do {
      let (keys, skipped) = try JWTKeyFiles.load(paths: config.jwtKeyFiles)
      var policy = core.access
      policy.signedTokens.keys = keys
      core.replaceAccess(policy)
      logger.notice(
        "JWT keys reloaded",
        metadata: ["files": "\(config.jwtKeyFiles.count)", "keys": "\(keys.count)", "skipped": "\(skipped)"])
    } catch {
      logger.error("JWT keys not reloaded, keeping the previous ones", metadata: ["error": "\(error)"])
    }
  }

  /// Called on the service thread after any `lws_cancel_service`.
  func checkStop() {
    guard server?.isStopRequested == true, !core.stopping else { return }
    core.requestShutdown(at: now())
    stopListening()
  }
}

/// Timer callbacks: each gets back the unretained driver that owns the timer.
func coreWakeFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<LWSDriver>.fromOpaque(owner).takeUnretainedValue().wakeTimerFired()
}

func loopWillWait(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  // Borrowed, as in relayCallback: the loop runs this once or twice per frame, and the driver
  // outlives its loop.
  Unmanaged<LWSDriver>.fromOpaque(owner)._withUnsafeGuaranteedRef { $0.beforeWait() }
}

func heartbeatFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<LWSDriver>.fromOpaque(owner).takeUnretainedValue().heartbeat()
}

/// The driver a wsi belongs to, from its context's user pointer.
func driverOf(_ wsi: OpaquePointer) -> LWSDriver? {
  guard let ctx = lws_get_context(wsi), let user = lws_context_user(ctx) else { return nil }
  return Unmanaged<LWSDriver>.fromOpaque(user).takeUnretainedValue()
}

extension LWSDriver {
  /// The keep-alive, once a second from the heartbeat: a connection silent for
  /// `--ping-interval` seconds is pinged once, one silent for `--idle-timeout` is hung up on
  /// (closed without a close frame, as a dropped network; the core then treats it as gone).
  /// Anything received counts, a pong included. lws 4.1 has this built in (the retry policy's
  /// `secs_since_valid_ping` and `_hangup`), but keeps a timer per connection in one sorted
  /// list that every ping, pong and new connection re-inserts into from its head: with many
  /// thousands of idle observers their pings came due together and held the service thread
  /// (PERFORMANCE.md, "Idle connections beside a live session"). One pass a second over the
  /// connections reads a few fields of each. A connection is heard "at" a whole second, so
  /// either limit may come up to a second early.
  /// The keep-alive's clock: whole seconds of a server time.
  static func keepAliveSecond(of t: Double) -> UInt32 { UInt32(truncatingIfNeeded: Int(t / 1000)) }

  func keepAlive() {
    let second = Self.keepAliveSecond(of: now())
    let ping = UInt32(config.pingInterval)
    let hangUp = UInt32(config.idleTimeout)
    links.forEach { link in
      guard !link.hungUp, !link.closing, !link.peerClosed else { return }
      let silent = second &- link.heardAt
      if silent >= hangUp {
        link.hungUp = true
        lws_set_timeout(link.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
      } else if silent >= ping && !link.pinged {
        link.pinged = true
        link.pingDue = true
        lws_callback_on_writable(link.wsi)
      }
    }
  }
}

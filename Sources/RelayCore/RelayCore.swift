import CPrefetch
import GestureEngine
import Logging
import TouchProtocol

/// The relay's rules as a state machine: who may connect, which peers a session has, what each
/// observer gets and what it loses when it falls behind, how a flood is throttled, how long a
/// dropped source may come back, how shutdown drains. It does no I/O, reads no clock and starts
/// no thread: a driver (libwebsockets in `RelayServer`, a recording's replay, later a cluster
/// bus or a TUIO socket) tells it what happened and when, and carries out what it asks for.
///
/// Events are its methods (`admit`, `open`, `receive`, `refuse`, `peerSentClose`, `closed`,
/// `advance`, `requestShutdown`, ...), each with the server time it happened at (milliseconds on
/// the driver's monotonic clock); the driver names a peer by the `PeerID` that `open` gave it. What to do comes back as `RelayAction`s, collected in one
/// reused list the driver takes with `drainActions` once its callback is done. The peers with
/// new output come in a list of their own (`drainOutputs`): it is the action of every message,
/// and a plain list of peers costs a fraction of an enum list's copies. A peer's bytes are
/// pulled with `nextWrite(for:)` when the driver can write to it. The same events at the
/// same times always give the same actions and bytes.
public final class RelayCore {
  public let configuration: Configuration
  var headroom: Int { configuration.headroom }
  /// A `let`, not part of `intake`: the decoder is read on every message, and a `let` of the
  /// core is read in place where one inside a `var` would be copied for each call.
  let decoder: MessageDecoder
  /// The frame and the engines' scratch that reading a frame reuses.
  var intake = FrameIntake()
  /// What the driver is to do, in order (see `drainActions`).
  let actions = ActionList()
  /// The peers with new output, and the pool of messages to write the next ones into.
  let deliveries = Deliveries()
  /// Plain counters for `/metrics`, read by the driver when scraped.
  public internal(set) var counters = RelayCounters()
  /// Times one frame in `RelayCounters.engineTimeSampling` in the engine, when set (the one
  /// place the core meets a clock, lent by the driver for a metric; nothing decided depends on it).
  public var engineTiming: (any EngineTiming)?
  /// The server time of the event being handled.
  public internal(set) var now: Double
  public let startedAt: Double

  /// Peers and sessions.
  var directory = PeerDirectory()
  /// Tokens, origins, and which refusals were logged.
  var admission: AdmissionState
  /// Serving, stopping (shutdown was requested: no new peers; every peer drains, then closes
  /// with 1001), or finished (`.finished` was emitted).
  var shutdown = ShutdownState.serving
  /// Every timer, and the wake-up asked of the driver (the one owner of time).
  var timers = Timers()
  /// The flood rules' paused readers and owed reports.
  var flood = FloodState()
  /// Set when this relay is a node of a cluster.
  public let cluster: ClusterState?

  /// Shutdown was requested (see `requestShutdown`).
  public var stopping: Bool { shutdown != .serving }
  /// Shutdown is complete; `.finished` was emitted.
  public var finished: Bool { shutdown == .finished }

  public var sessions: [String: Session] { directory.sessions }
  /// Every open peer, until `closed`, oldest first (for reports and tests: the driver names
  /// peers by `PeerID`).
  public var peers: [Peer] { directory.peersInAdmissionOrder }

  /// How many peers are open.
  public var peerCount: Int { directory.peers.count }

  /// The open peer `id` names (for reports and tests), nil once it is closed.
  public func peer(_ id: PeerID) -> Peer? { directory.peers[id] }
  /// Tokens and origins; replaced with `replaceAccess` (SIGHUP).
  public var access: AccessPolicy { admission.access }
  /// A recording's replay gives the recorded source its recorded id.
  public var fixedSourceID: String? {
    get { directory.fixedSourceID }
    set { directory.fixedSourceID = newValue }
  }

  public init(configuration: Configuration, access: AccessPolicy = AccessPolicy(), at rt: Double) {
    self.configuration = configuration
    admission = AdmissionState(access: access)
    decoder = MessageDecoder(limits: configuration.limits)
    cluster = configuration.cluster.map(ClusterState.init)
    now = rt
    startedAt = rt
  }

  /// A peer and its session hold each other: a core let go with peers still open (a test's, a
  /// replay's) would leak them all without this.
  deinit {
    for session in sessions.values {
      session.sources.removeAll()
      session.observers.removeAll()
    }
  }

  // MARK: - Actions

  func emit(_ action: RelayAction) { actions.append(action) }

  /// Hands every pending action to `body`, in order, and forgets them; actions that `body`'s
  /// own calls into the core cause are handed over in the same call.
  public func drainActions(_ body: (RelayAction) -> Void) { actions.drain(body) }

  /// Hands `body` every peer that has messages (or its close) to send since the last call,
  /// each once: write what `nextWrite(for:)` gives (messages, then a close), now or when the
  /// socket can take it.
  public func drainOutputs(_ body: (PeerID) -> Void) { deliveries.drain { body($0.id) } }

  /// A message the driver has written to a peer (from `nextWrite(for:)`) and holds no
  /// more: kept, with its buffer, for a later message if nothing else refers to it
  /// (`MessagePool`).
  public func recycle(_ message: consuming OutgoingMessage) {
    deliveries.messagePool.recycle(message)
  }

  /// Actions or outputs are waiting to be taken (`drainActions`, `drainOutputs`).
  public var hasPendingActions: Bool { !actions.isEmpty || !deliveries.isEmpty }

  /// Actions are waiting to be taken (`drainActions`): most events ask for none.
  public var hasActions: Bool { !actions.isEmpty }

  func log(_ level: Logger.Level, _ message: String, _ metadata: @autoclosure () -> Logger.Metadata = [:]) {
    guard level >= configuration.logLevel else { return }
    emit(.log(LogLine(level: level, message: message, metadata: metadata())))
  }

  // MARK: - Opening

  /// A new peer, admitted (see `admit`), and the id the driver names it by from now on.
  /// `token` and `wallClock` are the admitted request's: a signed token's expiry closes the peer.
  @discardableResult
  public func open(
    _ target: RequestTarget, address: String, token: String? = nil, wallClock: Double? = nil, at rt: Double
  ) -> PeerID {
    now = rt
    let session = directory.session(named: target.sessionName)
    let role: Peer.Role
    let filter: ObserverFilter
    let queue: ObserverQueue
    switch target {
    case .observer(_, let f):
      role = .observer
      filter = f
      queue = ObserverQueue(
        capacity: configuration.limits.observerQueue,
        hardLimit: configuration.limits.observerQueue * configuration.essentialOverflowFactor)
    case .source:
      role = .source
      filter = ObserverFilter()
      // A source only gets its welcome and errors; old errors make way for new ones.
      queue = ObserverQueue(
        capacity: configuration.maxPendingErrors, hardLimit: configuration.maxPendingErrors * 2)
    }
    let peer = Peer(
      id: directory.peers.nextID, serial: directory.takeSerial(), role: role, session: session, filter: filter,
      queue: queue, address: address)
    directory.add(peer)
    switch role {
    case .source:
      session.sources.append(peer)
      if configuration.record { emit(.record(peer.id, .opened(session: session.name, serial: peer.serial, rt: rt))) }
    case .observer:
      session.observers.append(peer)
      sendObserverWelcome(peer)
    }
    log(
      .info, "connection open",
      ["conn": "\(peer.serial)", "role": "\(role.rawValue)", "session": "\(session.name)", "peer": "\(address)"])
    scheduleTokenExpiry(peer, token: token, wallClock: wallClock, at: rt)
    return peer.id
  }

  private func sendObserverWelcome(_ peer: Peer) {
    let sources = peer.session.activeSources.filter { peer.filter.wants(source: $0.info.id) }
    let scenes = sources.compactMap { s in s.engine.sceneState.map { (source: s.info.id, state: $0) } }
    let bytes = ServerMessage.observerWelcome(
      session: peer.session.name, sources: sources.map(\.info), scenes: scenes, limits: configuration.limits,
      serverTime: now, headroom: headroom, cluster: clusterNode?.clusterWelcome(for: peer))
    enqueue(OutgoingMessage(bytes, headroom: headroom, supersedable: false, at: now), to: peer)
  }

  // MARK: - Receiving

  /// One complete text message from `peer`, received at server time `rt`. Once a close is
  /// decided (or the peer sent its own), what it sends is ignored.
  public func receive(_ bytes: UnsafeRawBufferPointer, from id: PeerID, at rt: Double) {
    now = rt
    guard let link = directory.peers.unretained(id) else { return }
    link._withUnsafeGuaranteedRef { receive(bytes, from: $0, at: rt) }
  }

  private func receive(_ bytes: UnsafeRawBufferPointer, from peer: Peer, at rt: Double) {
    guard peer.isOpen else { return }
    peer.counts.messagesIn += 1
    counters.messagesIn += 1
    counters.bytesIn += bytes.count
    if configuration.record, peer.role == .source { emit(.record(peer.id, .message(Array(bytes), rt: rt))) }
    peer.source?.prefetchEngine()
    if peer.role == .source {
      // The session's line, for `take` to read its observers' whereabouts from.
      tr_prefetch(Unmanaged.passUnretained(peer.session).toOpaque(), 64)
      // The kept frame is moved out and back, not passed as it is: passing a class's stored
      // property retains its touch array for the call, as the call could replace it.
      var frame = Frame(seq: 0, t: 0, touches: [])
      swap(&frame, &intake.frame)
      defer { swap(&frame, &intake.frame) }
      if let text = decoder.compactFrame(bytes, into: &frame) {
        return handleFrame(frame, text: text, from: peer, rt: rt)
      }
    }
    switch decoder.decode(bytes) {
    case .failure(let e):
      sendError(e, to: peer)
    case .success(let message):
      switch (peer.role, message) {
      case (.source, _):
        handleSource(message, from: peer, rt: rt)
      case (.observer, .control(let c)):
        guard admitsControl(from: peer, at: rt) else { return }
        handleObserverControl(c, from: peer, rt: rt)
      case (.observer, _):
        sendError(ProtocolError(.notAllowed, "observers may only send 'control'"), to: peer)
      }
    }
  }

  /// One message already decoded by another transport (a TUIO sender's bundle) from a source
  /// `peer`, received at `rt`: the same rules as a WebSocket source's, without JSON. Not
  /// recorded (`--record` records WebSocket bytes).
  public func receive(decoded message: ClientMessage, from id: PeerID, at rt: Double) {
    now = rt
    guard let peer = directory.peers[id], peer.isOpen else { return }
    peer.counts.messagesIn += 1
    counters.messagesIn += 1
    peer.source?.prefetchEngine()
    guard peer.role == .source else { return }
    handleSource(message, from: peer, rt: rt)
  }

  /// A `frame` from a source, the message that comes 60 to 240 times a second: the same rules
  /// as `handleSource`, without a decoded `ClientMessage` in between (each copy and destroy of
  /// one, and of the `Result` around it, went through their types' generic value witnesses).
  /// `text`: the parts of its text the mirror may copy (see `mirror`).
  private func handleFrame(_ frame: Frame, text: FrameText, from peer: Peer, rt: Double) {
    guard let state = peer.source, state.validator.saidHello else {
      return handleSource(.frame(frame), from: peer, rt: rt)
    }
    // A refused frame leaves the validator as it was.
    guard state.validator.takes(frame) else { return sendError(state.validator.rejection(of: frame), to: peer) }
    take(frame, text: text, from: peer, state, rt: rt)
  }

  private func handleSource(_ message: ClientMessage, from peer: Peer, rt: Double) {
    let state = peer.source
    var validator = state?.validator ?? SourceValidator()
    if let rejection = validator.accept(message) { return sendError(rejection, to: peer) }
    if case .hello(let hello) = message, let refusal = configuration.sceneRefusal(hello) {
      return sendError(refusal, to: peer)
    }
    state?.validator = validator
    switch message {
    case .hello(let hello):
      if let state {
        state.info.device = hello.device
        state.info.scene = hello.scene
        let out = state.engine.update(hello: hello)
        broadcastSourceEvent("updated", state.info, in: peer.session)
        deliver(out, from: peer, origin: state.origin(t: state.lastT, rt: rt))
      } else {
        join(peer, hello: hello, validator: validator, rt: rt)
      }
    case .frame(let frame):
      guard let state else { return }
      take(frame, from: peer, state, rt: rt)
    case .frames(let samples):
      guard let state else { return }
      // As if each sample came in a `frame` message of its own, in order, at the same time;
      // the engine's timer is armed once, from the newest sample's clock offset (an older
      // sample's, all arriving at one `rt`, would map its deadline later by the samples' span).
      for sample in samples {
        switch sample {
        case .failure(let e): sendError(e, to: peer)
        case .success(let frame):
          if let rejection = state.validator.accept(sample: frame) {
            sendError(rejection, to: peer)
          } else {
            take(frame, from: peer, state, rt: rt, arming: false)
          }
        }
      }
      arm(peer, state)
    case .control(let c):
      guard let state, admitsControl(from: peer, at: rt) else { return }
      if let e = applyControl(c, to: peer, state: state, rt: rt) { sendError(e, to: peer) }
    }
  }

  /// A frame that passed the validator: through the rate limit to the raw observers and the
  /// engine; `arming`: re-arm the source's timer after it (see `arm`).
  @inline(__always) private func take(
    _ frame: Frame, text: FrameText = FrameText(), from peer: Peer, _ state: SourceState,
    rt: Double, arming: Bool = true
  ) {
    // A refused frame has advanced the validator's state, as any frame the source sent; the
    // engine treats fingers missing from the next frame as cancelled.
    guard admitsFrame(frame, from: peer, state, at: rt) else { return }
    state.lastSeq = frame.seq
    state.lastT = frame.t
    state.lastRT = rt
    state.clockOffset = rt - frame.t
    let origin = Origin(source: state.info.id, seq: frame.seq, t: frame.t, rt: rt, sourceMember: state.sourceMember)
    peer.session.prefetchObservers()
    state.engine.prefetchBuffers()
    // Palms are marked in the mirror (gestures.md, "Palm rejection"): most frames have none.
    let palms = state.engine.markPalms(frame)
    let touches = mirror(frame, origin: origin, in: peer.session, text: text, state: state, palms: palms)
    // A TUIO bundle once a `format=tuio` observer came, and from then on (see `mirrorTUIO`).
    if state.tuioWriter != nil || state.tuio2Writer != nil || peer.session.tuioObservers > 0
      || peer.session.tuio2Observers > 0
    {
      mirrorTUIO(frame, origin: origin, state: state, in: peer.session, palms: palms)
    }
    counters.framesIn += 1
    // One frame in `engineTimeSampling` is timed: two clock readings and a histogram record
    // per frame would cost a fair part of what the engine itself costs.
    let timing = counters.framesIn % RelayCounters.engineTimeSampling == 1 ? engineTiming : nil
    let started = timing?.start() ?? 0
    let out = state.engine.process(frame, scratch: &intake.scratch)
    timing?.stop(started: started)
    // The frame's gestures copy their origin from its `touches` message (`FrameOrigin`).
    if let out { deliver(out, from: peer, origin: origin, frame: touches) }
    if arming { arm(peer, state) }
  }

  private func handleObserverControl(_ c: Control, from peer: Peer, rt: Double) {
    let candidates = peer.session.sources.filter { $0.source != nil }
    // A cluster node also reaches the sources of other nodes: the control goes there.
    let node = clusterNode
    let remote = node?.remoteControlTargets(in: peer.session) ?? []
    let target: Peer?
    if let id = c.source {
      target = candidates.first { $0.source?.info.id == id }
      if target == nil, let node, let r = remote.first(where: { $0.id == id }) {
        return sendRemoteControl(c, to: r, via: node, from: peer)
      }
    } else if candidates.count + remote.count == 1 {
      target = candidates.first
      if target == nil, let node, let r = remote.first {
        return sendRemoteControl(c, to: r, via: node, from: peer)
      }
    } else {
      target = nil
    }
    guard let target, let state = target.source else {
      let why =
        c.source.map { "no source '\($0.prefix(64))' in this session" }
        ?? "name the source: the session has \(candidates.count + remote.count) sources"
      return sendError(ProtocolError(.unknownSource, why), to: peer)
    }
    if let e = applyControl(c, to: target, state: state, rt: rt) { sendError(e, to: peer) }
  }

  /// A control for a source on another node goes over the bus; with the bus down it cannot,
  /// and the observer is told rather than left waiting for a scene that never changes.
  private func sendRemoteControl(_ c: Control, to source: RemoteSource, via node: ClusterNode, from peer: Peer) {
    guard node.cluster.busUp else {
      let why = "source '\(source.id.prefix(64))' is on another node, and this node's cluster bus is down"
      return sendError(ProtocolError(.sourceUnreachable, why), to: peer)
    }
    node.sendControl(c, to: source, in: peer.session, from: peer)
  }

  /// Runs `c` on `source`'s scene; the error for whoever sent it, if it failed.
  func applyControl(_ c: Control, to source: Peer, state: SourceState, rt: Double) -> ProtocolError? {
    switch state.engine.control(c) {
    case .failure(let e): return e
    case .success(let out):
      deliver(out, from: source, origin: state.origin(t: state.lastT, rt: rt))
      arm(source, state)
      return nil
    }
  }

  private func join(_ peer: Peer, hello: Hello, validator: SourceValidator, rt: Double) {
    let session = peer.session
    var resumed = false
    let id: String
    if let wanted = hello.resume, session.departed.removeValue(forKey: wanted) != nil {
      id = wanted
      resumed = true
      planSweep()
    } else if let wanted = hello.resume, let node = clusterNode, let remote = node.remoteSource(wanted, in: session.name) {
      // A source of another node (dropped there, or its node died, or not known dead yet):
      // it is this node's now; that node gives it up when it hears the `rejoined`.
      node.takeOver(remote, in: session.name)
      id = wanted
      resumed = true
    } else {
      id = directory.newSourceID(node: cluster?.node)
    }
    let engine = configuration.makeProcessor(for: hello)
    let state = SourceState(
      info: SourceInfo(id: id, device: hello.device, scene: hello.scene), engine: engine,
      frameGate: RateGate(perSecond: Double(configuration.limits.maxFramesPerSecond), now: rt))
    state.validator = validator
    state.lastRT = rt
    peer.source = state
    if configuration.record { emit(.record(peer.id, .joined(source: id))) }
    let welcome = ServerMessage.sourceWelcome(
      session: session.name, source: id, resumed: resumed, limits: configuration.limits, serverTime: rt,
      headroom: headroom)
    enqueue(OutgoingMessage(welcome, headroom: headroom, supersedable: false, at: rt), to: peer)
    broadcastSourceEvent(resumed ? "rejoined" : "joined", state.info, in: session)
    if let scene = state.engine.sceneState {
      broadcastScene(scene, source: id, origin: nil, in: session)
    }
  }

  // MARK: - Access

  /// New tokens (the tokens file re-read on SIGHUP). Open peers keep their connections.
  public func replaceAccess(_ policy: AccessPolicy) {
    admission.access = policy
  }

  // MARK: - Health

  /// `/healthz`: status, the node's name, uptime at `rt`, and how many sessions and peers there are.
  public func healthJSON(at rt: Double) -> [UInt8] {
    var w = JSONWriter()
    let observers = sessions.values.reduce(0) { $0 + $1.observers.count }
    let sources = sessions.values.reduce(0) { $0 + $1.sources.count }
    w.beginObject()
    w.key("status")
    w.string(stopping ? "stopping" : "ok")
    w.key("protocol")
    w.string(protocolName)
    if let node = configuration.nodeID {
      w.key("node")
      w.string(node)
    }
    w.key("uptime")
    w.number(((rt - startedAt) / 10).rounded() / 100)
    w.key("sessions")
    w.int(Int64(sessions.count))
    w.key("connections")
    w.int(Int64(peerCount))
    w.key("sources")
    w.int(Int64(sources))
    w.key("observers")
    w.int(Int64(observers))
    if let cluster {
      w.key("cluster")
      w.beginObject()
      ServerMessage.writeClusterMembers(node: cluster.node, busUp: cluster.busUp, &w)
      w.key("nodes")
      w.beginArray()
      for n in cluster.knownNodes { w.string(n) }
      w.endArray()
      w.key("remoteSources")
      w.int(Int64(cluster.remoteSourceCount))
      w.endObject()
    }
    w.endObject()
    return w.bytes
  }
}

import GestureEngine
import Logging
import TouchProtocol

/// A cluster node (protocol/README.md, "Cluster"): what this node puts on the bus for the
/// others, and what it does with theirs: the core's part for sources elsewhere. Its state is
/// `ClusterState`; the core makes one of these for each event only when it is a node
/// (`RelayCore.clusterNode`), so nothing here asks whether there is a cluster. The bus driver
/// (Redis in `RelayServer`) publishes what `takeBusData` gives on the node's channel and the
/// notices of `.busNotice` on the nodes' channel, subscribes as `.busSubscribe` asks, and hands
/// back what it reads. A source on another node reaches local observers through the core's one
/// fan-out (`RelayCore.fanOut`), as a local one does: encoded once (by its node), queued for
/// each observer whose filter wants it, dropped and counted when a queue is full, and with a
/// gap in the bus reported as `dropped` before the next message.
struct ClusterNode {
  /// The core this part routes its deliveries and actions through: a `ClusterNode` lives for
  /// one call of the core's, which outlives it.
  unowned(unsafe) let core: RelayCore
  let cluster: ClusterState

  private var now: Double { core.now }
  private var headroom: Int { core.headroom }
  private var configuration: RelayCore.Configuration { core.configuration }
  private var sessions: [String: Session] { core.sessions }
  private func log(
    _ level: Logger.Level, _ message: String, _ metadata: @autoclosure () -> Logger.Metadata = [:]
  ) { core.log(level, message, metadata()) }
  private func emit(_ action: RelayAction) { core.emit(action) }

  // MARK: - What this node publishes

  /// Appends one record about `session` to the outbox (a message of a local source, encoded
  /// once for local and remote observers alike).
  func publish(
    _ kind: BusRecordKind, in session: Session, source: String, origin: Origin?, supersedable: Bool,
    gesture: GestureEvent? = nil, arg: String = "", payload: OutgoingMessage?, extra: [UInt8] = []
  ) {
    guard !cluster.busMuted else { return }
    if session.busStream == 0 {
      session.busStream = cluster.nextStream
      cluster.nextStream += 1
    }
    session.busSeq += 1
    let p = payload.map { UnsafeRawBufferPointer(rebasing: $0.bytes[$0.headroom...]) }
    extra.withUnsafeBytes { e in
      cluster.outbox.append(
        kind, supersedable: supersedable, session: session.name, source: source, stream: session.busStream,
        sessionSeq: session.busSeq, origin: origin, gesture: gesture, arg: arg,
        payload: p ?? UnsafeRawBufferPointer(start: nil, count: 0), extra: e)
    }
    cluster.counters.recordsOut += 1
  }

  // MARK: - The bus's state

  /// The driver's subscriptions are in place (the nodes' channel and every known node's): ask
  /// every node to announce its sources, so what changed while the bus was away is learned.
  func busConnected(at rt: Double) {
    cluster.busUp = true
    cluster.busUpSince = rt
    log(.notice, "cluster bus up", ["node": "\(cluster.node)", "nodes": "\(cluster.nodes.count)"])
    emit(.busNotice(NodeNotice(kind: .sync, node: cluster.node, epoch: cluster.rules.epoch).encoded))
    emit(.busNotice(NodeNotice(kind: .heartbeat, node: cluster.node, epoch: cluster.rules.epoch).encoded))
  }

  /// The bus is unreachable: local sessions go on; what other nodes send meanwhile is lost, and
  /// found as gaps once it is back.
  func busDisconnected(at rt: Double) {
    guard cluster.busUp else { return }
    cluster.busUp = false
    log(.warning, "cluster bus down", ["node": "\(cluster.node)"])
  }

  /// The driver subscribed to `node`'s data channel: ask it for its sources.
  func busSubscribed(node: String, at rt: Double) {
    guard let remote = cluster.nodes[node] else { return }
    remote.syncAskedAt = nil
    askForSync(node)
  }

  /// Once a second (`ClusterRules.heartbeatInterval`): the heartbeat, as a `.busNotice`
  /// ahead of whatever else this asks of the bus; nodes silent past the timeout are dead; held
  /// sources whose time is up have left.
  func busHeartbeat(at rt: Double) {
    emit(.busNotice(NodeNotice(kind: .heartbeat, node: cluster.node, epoch: cluster.rules.epoch).encoded))
    // A node that cannot hear the bus cannot tell a dead node from its own deafness.
    if cluster.busUp, rt - cluster.busUpSince >= cluster.rules.nodeTimeout {
      for remote in cluster.nodesByName where rt - remote.lastHeard > cluster.rules.nodeTimeout {
        log(.warning, "cluster node lost", ["node": "\(remote.id)", "silentMs": "\(Int(rt - remote.lastHeard))"])
        cluster.counters.nodesLost += 1
        nodeGone(remote.id, died: true)
      }
    }
    // Sessions by name, in each the sources in the order their time ran out (then of arrival).
    for remoteSession in cluster.directoryByName {
      let ended = remoteSession.sources.values.compactMap { s in
        s.heldUntil.flatMap { $0 <= rt ? (until: $0, source: s) : nil }
      }
      for (_, source) in ended.sorted(by: { ($0.until, $0.source.order) < ($1.until, $1.source.order) }) {
        remoteSession.sources[source.id] = nil
        forwardSourceEvent("left", info: source.info, in: remoteSession.name)
      }
      dropIfUnused(remoteSession)
    }
  }

  // MARK: - The nodes' channel

  /// A message on the nodes' channel.
  func busReceived(notice bytes: UnsafeRawBufferPointer, at rt: Double) {
    let notice: NodeNotice
    switch NodeNotice.decode(bytes) {
    case .failure(let e):
      cluster.counters.malformed[e.label, default: 0] += 1
      return
    case .success(let n): notice = n
    }
    guard notice.node != cluster.node else { return }
    switch notice.kind {
    case .heartbeat:
      heard(notice.node, epoch: notice.epoch, at: rt)
    case .sync:
      heard(notice.node, epoch: notice.epoch, at: rt)
      if notice.target.isEmpty || notice.target == cluster.node { announceSources() }
    case .bye:
      guard cluster.nodes[notice.node]?.epoch == notice.epoch else { return }
      log(.notice, "cluster node left", ["node": "\(notice.node)"])
      nodeGone(notice.node, died: false)
    }
  }

  /// `node` is alive; a node not known yet is subscribed to, one with a new epoch restarted.
  @discardableResult
  private func heard(_ node: String, epoch: UInt64, at rt: Double) -> RemoteNode? {
    if let remote = cluster.nodes[node] {
      if remote.epoch != epoch {
        log(.notice, "cluster node restarted", ["node": "\(node)"])
        nodeGone(node, died: true)
        return heard(node, epoch: epoch, at: rt)
      }
      remote.lastHeard = rt
      return remote
    }
    let remote = RemoteNode(id: node, epoch: epoch, lastHeard: rt)
    cluster.nodes[node] = remote
    log(.notice, "cluster node joined", ["node": "\(node)"])
    emit(.busSubscribe(node: node))
    return remote
  }

  /// `node` is gone. Died: its sources' active gestures are cancelled and the sources held for
  /// a resume on any node (`left` when the window ends). Left cleanly: its sources left with it.
  private func nodeGone(_ node: String, died: Bool) {
    cluster.nodes[node] = nil
    emit(.busUnsubscribe(node: node))
    for remoteSession in cluster.directoryByName {
      remoteSession.streams[node] = nil
      for source in remoteSession.sourcesInArrivalOrder where source.node == node {
        if died {
          cancelActive(source, in: remoteSession.name)
          let until = now + configuration.resumeWindow * 1000
          source.heldUntil = min(source.heldUntil ?? until, until)
        } else {
          remoteSession.sources[source.id] = nil
          forwardSourceEvent("left", info: source.info, in: remoteSession.name)
        }
      }
      dropIfUnused(remoteSession)
    }
  }

  /// Answers a `sync`: every local source, its scene, then the end of the round. Sessions by
  /// name, in each its sources in the order they came and its departed ones in the order they
  /// departed (by deadline, then id), as `sweepDeparted` lets them go: the same events give the
  /// same records in the same order.
  private func announceSources() {
    cluster.syncRound += 1
    let round = "\(cluster.syncRound)"
    for session in core.directory.sessionsByName {
      for peer in session.sources {
        guard let state = peer.source else { continue }
        let joined = OutgoingMessage(
          ServerMessage.sourceEvent("joined", state.info, headroom: headroom), headroom: headroom,
          supersedable: false, at: now)
        publish(
          .announce, in: session, source: state.info.id, origin: nil, supersedable: false, arg: round,
          payload: joined, extra: ServerMessage.sourceInfoJSON(state.info))
        if let scene = state.engine.sceneState {
          let o = state.origin(t: state.lastT, rt: state.lastRT)
          let m = OutgoingMessage(
            ServerMessage.scene(source: state.info.id, state: scene, origin: o, headroom: headroom),
            headroom: headroom, supersedable: true, at: now)
          publish(
            .scene, in: session, source: state.info.id, origin: o, supersedable: true, payload: m,
            extra: ServerMessage.sceneState(scene))
        }
      }
      for (id, departed) in session.departed.sorted(by: { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }) {
        publish(
          .departed, in: session, source: id, origin: nil, supersedable: false, arg: round, payload: nil,
          extra: ServerMessage.sourceInfoJSON(departed.info))
      }
    }
    cluster.outbox.append(
      .announceEnd, supersedable: false, session: "", source: "", origin: nil, arg: round,
      payload: UnsafeRawBufferPointer(start: nil, count: 0), extra: UnsafeRawBufferPointer(start: nil, count: 0))
    cluster.counters.recordsOut += 1
  }

  // MARK: - Other nodes' data

  /// A data message read from another node's channel. Checked whole before any record acts:
  /// one that is not well-formed is counted and ignored.
  func busReceived(data bytes: UnsafeRawBufferPointer, at rt: Double) {
    cluster.counters.batchesIn += 1
    cluster.counters.bytesIn += bytes.count
    var reader = BusReader(bytes)
    let node: String
    let epoch: UInt64
    cluster.pending.removeAll(keepingCapacity: true)
    do throws(BusFormatError) {
      try reader.expect("TRB1")
      node = try reader.name()
      epoch = try reader.u64()
      let count = Int(try reader.u32())
      guard count <= bytes.count else { throw .truncated }
      for _ in 0..<count {
        let record = try BusRecord.read(&reader)
        try check(record, in: bytes)
        cluster.pending.append(record)
      }
      guard reader.atEnd else { throw .trailingBytes }
    } catch {
      cluster.counters.malformed[error.label, default: 0] += 1
      return
    }
    guard node != cluster.node, heard(node, epoch: epoch, at: rt) != nil else { return }
    if let first = cluster.pending.first, first.rt > 0 { cluster.lastDelay = rt - first.rt }
    cluster.counters.recordsIn += cluster.pending.count
    for record in cluster.pending { apply(record, from: node, bytes: bytes) }
    cluster.pending.removeAll(keepingCapacity: true)
  }

  /// A record's message reaches observers as it is, in a text frame: it must be UTF-8 (a
  /// browser drops the connection over a frame that is not) and look like a JSON object. The
  /// per-frame records are not parsed further: a full JSON check was a large part of the
  /// receiving node's CPU (PERFORMANCE.md, "Cluster over Redis"), and only a node (or whoever
  /// else may publish to this Redis) writes them. What this node keeps and splices into
  /// welcomes and snapshots (source info, scene states) is checked as JSON.
  private func check(_ record: BusRecord, in bytes: UnsafeRawBufferPointer) throws(BusFormatError) {
    let payload = UnsafeRawBufferPointer(rebasing: bytes[record.payload])
    let extra = UnsafeRawBufferPointer(rebasing: bytes[record.extra])
    switch record.kind {
    case .announceEnd:
      return
    case .departed:
      guard JSONSyntax.isValue(extra) else { throw .badJSON }
    case .touches, .gesture, .scene, .source, .announce, .control, .controlError:
      guard !record.source.isEmpty, payload.count >= 2, payload.first == UInt8(ascii: "{"),
        payload.last == UInt8(ascii: "}"), UTF8Validator.isValid(payload)
      else { throw .badJSON }
      if record.kind == .scene || record.kind == .source || record.kind == .announce {
        guard JSONSyntax.isValue(extra) else { throw .badJSON }
      }
    }
  }

  private func apply(_ record: BusRecord, from node: String, bytes: UnsafeRawBufferPointer) {
    switch record.kind {
    case .announceEnd:
      return endAnnouncement(from: node, round: UInt64(record.arg) ?? 0)
    // A control and its error are a word from one node to another, outside the session's
    // numbered stream (they carry no number): taken through the numbering, each would read as
    // a repeat of the record before it, or make the next numbered one look like a gap.
    case .control:
      return controlFromBus(record, payload: UnsafeRawBufferPointer(rebasing: bytes[record.payload]))
    case .controlError:
      return controlErrorFromBus(
        record, payload: UnsafeRawBufferPointer(rebasing: bytes[record.payload]), in: sessions[record.session])
    default:
      break
    }
    let remoteSession = cluster.directory[record.session] ?? newRemoteSession(record.session)
    let local = sessions[record.session]
    // The stream's numbering: a gap is what every local observer of the session may have
    // missed (an upper bound: its filter may not have wanted all of it).
    if let known = remoteSession.streams[node], known.stream == record.stream {
      if record.sessionSeq < known.next { return }
      if record.sessionSeq > known.next { gap(Int(record.sessionSeq - known.next), from: node, in: local) }
    } else if record.sessionSeq > 1, cluster.nodes[node]?.synced == true {
      // A new stream seen from the middle, from a node heard before: its start was missed. (A
      // node just heard of is joined mid-stream; what it said before was never promised here.)
      gap(Int(record.sessionSeq - 1), from: node, in: local)
    }
    remoteSession.streams[node] = (record.stream, record.sessionSeq + 1)
    let payload = UnsafeRawBufferPointer(rebasing: bytes[record.payload])
    let extra = UnsafeRawBufferPointer(rebasing: bytes[record.extra])
    var info: SourceInfo?
    if record.kind == .source || record.kind == .announce || record.kind == .departed {
      info = SourceInfo.decode(json: extra)
      guard info?.id == record.source else {
        cluster.counters.malformed[BusFormatError.badJSON.label, default: 0] += 1
        return
      }
    }
    let source = remoteSession.sources[record.source]
    if let source, record.rt > 0 {
      source.lastSeq = record.seq
      source.lastT = record.t
      source.lastRT = record.rt
    }
    if let source, source.heldUntil != nil, source.node == node,
      record.kind == .touches || record.kind == .gesture || record.kind == .scene
    {
      // Its node was taken for dead and is not: the source is back.
      source.heldUntil = nil
      forwardSourceEvent("rejoined", info: source.info, in: record.session)
    }
    switch record.kind {
    case .touches:
      // A `format=tuio` observer gets only its own node's sources as TUIO: the bus carries
      // the JSON messages (protocol/README.md, section 7).
      forward(payload, record, in: local) { $0.raw && $0.format == .json && $0.predict == nil }
      // `predict=MS` observers: this node predicts from the records it gets (the bus carries
      // no prediction). A source not known here yet (its `joined` was missed) has no history:
      // its moving touches are predicted where they are until it is announced.
      if let local, local.predictObservers > 0 {
        var unknown = PositionPredictor()
        let createdAt = Int64((record.rt > 0 ? record.rt : now) * 1_000_000)
        if let source {
          core.fanOutPredicted(
            payload, t: record.t, source: record.source, predictor: &source.predictor, in: local, createdAt: createdAt)
        } else {
          core.fanOutPredicted(
            payload, t: record.t, source: record.source, predictor: &unknown, in: local, createdAt: createdAt)
        }
      }
    case .gesture:
      if let source { track(record, of: source) }
      forward(payload, record, in: local) { $0.format == .json && $0.wants(record.gesture.kind) }
    case .scene:
      source?.sceneState = Array(extra)
      forward(payload, record, in: local) { _ in true }
    case .source:
      switch record.arg {
      case "left":
        remoteSession.sources[record.source] = nil
        dropIfUnused(remoteSession)
      default:
        let s = upsert(record.source, node: node, info: info!, in: remoteSession)
        s.heldUntil = nil
        if record.arg == "rejoined" { handOver(record.source, in: record.session) }
      }
      forward(payload, record, in: local) { _ in true }
    case .announce:
      let known = source != nil && source?.heldUntil == nil && source?.node == node
      let s = upsert(record.source, node: node, info: info!, in: remoteSession)
      s.heldUntil = nil
      s.round = UInt64(record.arg) ?? 0
      // Observers that never saw it (it joined while the bus was away) are told now.
      if !known { forward(payload, record, in: local) { _ in true } }
    case .departed:
      let s = upsert(record.source, node: node, info: info!, in: remoteSession)
      s.round = UInt64(record.arg) ?? s.round
      s.heldUntil = now + configuration.resumeWindow * 1000 + cluster.rules.departedGrace
    case .control, .controlError, .announceEnd:
      break
    }
  }

  /// The end of `node`'s answer to a `sync`: its sources that it did not announce are gone.
  private func endAnnouncement(from node: String, round: UInt64) {
    cluster.nodes[node]?.synced = true
    for remoteSession in cluster.directoryByName {
      for source in remoteSession.sourcesInArrivalOrder where source.node == node && source.round != round {
        remoteSession.sources[source.id] = nil
        if source.heldUntil == nil {
          cancelActive(source, in: remoteSession.name)
          forwardSourceEvent("left", info: source.info, in: remoteSession.name)
        }
      }
      dropIfUnused(remoteSession)
    }
  }

  private func newRemoteSession(_ name: String) -> RemoteSession {
    let s = RemoteSession(name: name)
    cluster.directory[name] = s
    return s
  }

  /// A session nobody here follows and no other node has sources in is forgotten.
  private func dropIfUnused(_ remoteSession: RemoteSession) {
    guard remoteSession.sources.isEmpty, sessions[remoteSession.name]?.observers.isEmpty ?? true else { return }
    cluster.directory[remoteSession.name] = nil
  }

  private func upsert(_ id: String, node: String, info: SourceInfo, in remoteSession: RemoteSession) -> RemoteSource {
    if let s = remoteSession.sources[id] {
      if s.node != node {
        // It resumed on another node: what it had begun there ended with the old connection.
        cancelActive(s, in: remoteSession.name)
        s.node = node
      }
      s.info = info
      return s
    }
    cluster.nextOrder += 1
    let s = RemoteSource(id: id, node: node, info: info, order: cluster.nextOrder)
    remoteSession.sources[id] = s
    return s
  }

  private func track(_ record: BusRecord, of source: RemoteSource) {
    let g = record.gesture
    switch g.state {
    case .began, .changed:
      source.active[g.id] = GestureEvent(
        id: g.id, gesture: g.kind, state: .cancelled, t: record.t, x: g.x, y: g.y, touches: 0)
    case .ended, .cancelled, .recognized:
      source.active[g.id] = nil
    }
  }

  /// `cancelled` for every gesture `source` had begun, to local observers (its node cannot
  /// send them: it died, or the source resumed elsewhere).
  private func cancelActive(_ source: RemoteSource, in sessionName: String) {
    guard !source.active.isEmpty else { return }
    let local = sessions[sessionName]
    for (_, event) in source.active.sorted(by: { $0.key < $1.key }) {
      var e = event
      e.t = max(e.t, source.lastT)
      let origin = source.origin(t: e.t, rt: now)
      guard let local else { continue }
      _ = core.fanOut(to: local.observers, where: {
        $0.filter.format == .json && $0.filter.wants(source: source.id) && $0.filter.wants(e.gesture)
      }) {
        core.deliveries.messagePool.message(
          headroom: headroom, capacity: ServerMessage.gestureCapacity, supersedable: false,
          createdAt: origin.createdAt
        ) { ServerMessage.write(e, origin: origin, &$0) }
      }
    }
    source.active.removeAll()
  }

  /// A record's message, as its node encoded it, to every local observer that wants it.
  private func forward(
    _ payload: UnsafeRawBufferPointer, _ record: BusRecord, in local: Session?, wants: (ObserverFilter) -> Bool
  ) {
    guard let local else { return }
    _ = core.fanOut(to: local.observers, where: { $0.filter.wants(source: record.source) && wants($0.filter) }) {
      OutgoingMessage(
        copying: payload, headroom: headroom, supersedable: record.supersedable, at: record.rt > 0 ? record.rt : now)
    }
  }

  private func forwardSourceEvent(_ event: String, info: SourceInfo, in sessionName: String) {
    guard let local = sessions[sessionName] else { return }
    _ = core.fanOut(to: local.observers, where: { $0.filter.wants(source: info.id) }) {
      OutgoingMessage(
        ServerMessage.sourceEvent(event, info, headroom: headroom), headroom: headroom, supersedable: false, at: now)
    }
  }

  /// Every local observer of `local` may have missed `count` messages: each is told
  /// (`dropped`, then scene snapshots) before the next message it gets, and the node is asked
  /// for its sources again.
  private func gap(_ count: Int, from node: String, in local: Session?) {
    cluster.counters.gaps += 1
    // Each gap is below 2^53 (BusReader's bound): clamped, the sum cannot overflow.
    cluster.counters.missedRecords = min(cluster.counters.missedRecords + count, ObserverQueue.countLimit)
    log(.notice, "cluster bus gap", ["node": "\(node)", "missed": "\(count)", "session": "\(local?.name ?? "-")"])
    if let local {
      for obs in local.observers where obs.isOpen {
        obs.queue.noteMissed(count)
        core.countDropped(count, for: obs)
        core.announce(obs)
      }
    }
    askForSync(node)
  }

  /// Asks `node` to announce its sources again, at most once a second.
  private func askForSync(_ node: String) {
    guard let remote = cluster.nodes[node] else { return }
    if let asked = remote.syncAskedAt, now - asked < 1000 { return }
    remote.syncAskedAt = now
    emit(.busNotice(NodeNotice(kind: .sync, node: cluster.node, epoch: cluster.rules.epoch, target: node).encoded))
  }

  /// Another node took `id` over (`rejoined` there): if it is ours, held or still connected,
  /// it is no longer ours — without a `left`, since it lives on.
  private func handOver(_ id: String, in sessionName: String) {
    guard let session = sessions[sessionName] else { return }
    if session.departed.removeValue(forKey: id) != nil {
      core.planSweep()
      core.directory.forgetIfEmpty(session)
      return
    }
    for peer in session.sources where peer.source?.info.id == id {
      peer.source?.handedOver = true
      core.close(peer, .handedOver, "resumed on another node", drain: false)
    }
  }

  // MARK: - Controls across nodes

  /// An observer's `control` for a source of another node: sent there, as the control it was
  /// read as, naming its source. Not the observer's text: what a peer may send (white space
  /// around the object, unknown members up to `maxMessageBytes`) is not what a record may carry,
  /// and the receiving node refuses a data message whole over one bad record.
  func sendControl(_ c: Control, to source: RemoteSource, in session: Session, from peer: Peer) {
    var w = JSONWriter()
    w.beginObject()
    w.key("type")
    w.string(literal: "control")
    w.key("source")
    w.string(source.id)
    if let on = c.recognizeAny {
      w.key("recognizeAny")
      w.bool(on)
    }
    if let action = c.action {
      // Scene actions are short words: a longer one is refused there all the same, and a
      // record holds at most `BusRecord.maxPayload`.
      w.key("action")
      w.string(action.utf8.count <= 64 ? action : String(decoding: action.utf8.prefix(64), as: UTF8.self))
    }
    w.endObject()
    w.withUnsafeBytes { payload in
      cluster.outbox.append(
        .control, supersedable: false, session: session.name, source: source.id, origin: nil,
        arg: "\(cluster.node).\(peer.serial)", payload: payload, extra: UnsafeRawBufferPointer(start: nil, count: 0))
    }
    cluster.counters.recordsOut += 1
  }

  private func controlFromBus(_ record: BusRecord, payload: UnsafeRawBufferPointer) {
    guard let session = sessions[record.session],
      let target = session.sources.first(where: { $0.source?.info.id == record.source }), let state = target.source
    else { return }
    let failure: ProtocolError?
    switch core.decoder.decode(payload) {
    case .success(.control(let c)):
      failure = core.applyControl(c, to: target, state: state, rt: now)
    case .success:
      failure = ProtocolError(.notAllowed, "observers may only send 'control'")
    case .failure(let e):
      failure = e
    }
    guard let failure else { return }
    let bytes = ServerMessage.error(failure)
    bytes.withUnsafeBytes { b in
      cluster.outbox.append(
        .controlError, supersedable: false, session: session.name, source: record.source, origin: nil,
        arg: record.arg, payload: b, extra: UnsafeRawBufferPointer(start: nil, count: 0))
    }
    cluster.counters.recordsOut += 1
  }

  private func controlErrorFromBus(_ record: BusRecord, payload: UnsafeRawBufferPointer, in local: Session?) {
    guard let local, let dot = record.arg.lastIndex(of: ".") else { return }
    guard record.arg[..<dot] == cluster.node, let serial = Int(record.arg[record.arg.index(after: dot)...]) else {
      return
    }
    guard let peer = local.observers.first(where: { $0.serial == serial }) else { return }
    peer.counts.errorsSent += 1
    core.enqueue(OutgoingMessage(copying: payload, headroom: headroom, supersedable: false, at: now), to: peer)
  }

  // MARK: - What local peers see of other nodes

  /// The remote sources an observer's welcome lists, and their scenes.
  func clusterWelcome(for peer: Peer) -> ServerMessage.ClusterWelcome? {
    let listed = (cluster.directory[peer.session.name]?.listed ?? []).filter { peer.filter.wants(source: $0.id) }
    return ServerMessage.ClusterWelcome(
      node: cluster.node, busUp: cluster.busUp, sources: listed.map(\.info),
      scenes: listed.compactMap { s in s.sceneState.map { (source: s.id, state: $0) } })
  }

  /// After a gap: a snapshot of every remote scene the observer follows.
  func remoteSnapshots(for peer: Peer) -> [OutgoingMessage] {
    guard let remote = cluster.directory[peer.session.name] else { return [] }
    return remote.listed.compactMap { s in
      guard peer.filter.wants(source: s.id), let state = s.sceneState else { return nil }
      let bytes = ServerMessage.scene(
        source: s.id, stateJSON: state, origin: s.origin(t: s.lastT, rt: s.lastRT), headroom: headroom)
      return OutgoingMessage(bytes, headroom: headroom, supersedable: true, at: now)
    }
  }

  /// A source id another node has (or held): a `hello.resume` for it may take it over here.
  func remoteSource(_ id: String, in session: String) -> RemoteSource? {
    cluster.directory[session]?.sources[id]
  }

  /// Takes a remote source over for a local `hello.resume`: its active gestures are cancelled
  /// for local observers, and it is this node's from now on.
  func takeOver(_ source: RemoteSource, in session: String) {
    cancelActive(source, in: session)
    cluster.directory[session]?.sources[source.id] = nil
  }

  /// A source that only another node has, for a `control` naming it (or the only one).
  func remoteControlTargets(in session: Session) -> [RemoteSource] {
    cluster.directory[session.name]?.listed ?? []
  }
}

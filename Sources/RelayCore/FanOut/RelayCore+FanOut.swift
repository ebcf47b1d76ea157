import GestureEngine
import TouchProtocol

/// Fan-out: each message is encoded once and queued for every peer that wants it. A queue that
/// is full drops what a later message supersedes (`ObserverQueue`); a peer whose undroppable
/// messages pile past the hard limit is closed (1008).
extension RelayCore {
  /// `frame`: the `touches` message of the frame that caused `out`, if one was made (`mirror`).
  func deliver(_ out: EngineOutput, from peer: Peer, origin: Origin, frame: FrameOrigin? = nil) {
    for e in out.errors { sendError(e, to: peer) }
    counters.gestureEvents += out.events.count
    for event in out.events {
      var o = origin
      o.t = event.t
      broadcastGesture(event, origin: o, in: peer.session, frame: frame)
    }
    if let scene = out.scene { broadcastScene(scene, source: origin.source, origin: origin, in: peer.session) }
    if out.hasShapes { deliverShapes(out.shapes, origin: origin, in: peer.session) }
  }

  /// Queues one message for every observer in `observers` that `wants` it, made by `make` only
  /// once one does; returns it (nil if none did). The message is made outside the loop and
  /// passed on as it is: one reference counted per observer, for its queue.
  @inline(__always)
  func fanOut(to observers: [Peer], where wants: (Peer) -> Bool, _ make: () -> OutgoingMessage) -> OutgoingMessage? {
    guard let first = observers.firstIndexBorrowed(where: wants) else { return nil }
    let m = make()
    observers.forEachBorrowed(from: first) { obs in if wants(obs) { enqueue(m, to: obs) } }
    return m
  }

  /// `text`: the parts of the source's message that are the server's own text for them
  /// (`MessageDecoder.compactFrame`): copied, not written again.
  /// `palms`: ids of the frame's palm entries, marked `"palm":true` (the touches text is then
  /// written, not copied). Returns the message made, for the frame's gestures to copy their
  /// origin from. `state`: the source's, whose predictor `predict=MS` observers' copies take
  /// (see `fanOutPredicted`; a palm's entry carries its prediction after `palm`).
  func mirror(
    _ frame: Frame, origin: Origin, in session: Session, text: FrameText = FrameText(), state: SourceState? = nil,
    palms: [Int64] = []
  ) -> FrameOrigin? {
    var originText = 0..<0
    func make() -> OutgoingMessage {
      deliveries.messagePool.message(
        headroom: headroom, capacity: ServerMessage.touchesCapacity(frame, text: text), supersedable: true,
        createdAt: origin.createdAt
      ) { originText = ServerMessage.write(frame, origin: origin, text: text, palms: palms, &$0) }
    }
    var message = fanOut(to: session.observers, where: {
      $0.filter.raw && $0.filter.format == .json && $0.filter.predict == nil && $0.filter.wants(source: origin.source)
    }, make)
    if let state, session.predictObservers > 0 {
      let m = message ?? make()
      message = m
      m.withPayload {
        fanOutPredicted(
          $0, t: frame.t, source: origin.source, predictor: &state.predictor, in: session, createdAt: origin.createdAt)
      }
    }
    if let node = clusterNode {
      let m = message ?? make()
      message = m
      node.publish(.touches, in: session, source: origin.source, origin: origin, supersedable: true, payload: m)
    }
    guard let message else { return nil }
    return FrameOrigin(message: message, members: originText, t: origin.t)
  }

  /// `frame`: the `touches` message of the frame that caused `e`, if any (see `deliver`).
  func broadcastGesture(_ e: GestureEvent, origin: Origin, in session: Session, frame: FrameOrigin? = nil) {
    // Most of a frame's gestures have its time: their origin is in its `touches` message.
    let sameOrigin = frame.flatMap { $0.t == origin.t ? $0 : nil }
    func make() -> OutgoingMessage {
      deliveries.messagePool.message(
        headroom: headroom, capacity: ServerMessage.gestureCapacity, supersedable: e.state.isSupersedable,
        createdAt: origin.createdAt
      ) { w in
        let text = sameOrigin.map { UnsafeRawBufferPointer(rebasing: $0.message.bytes[$0.members]) }
        ServerMessage.write(e, origin: origin, originText: text, &w)
      }
    }
    let message = fanOut(to: session.observers, where: {
      $0.filter.format == .json && $0.filter.wants(source: origin.source) && $0.filter.wants(e.gesture)
    }, make)
    if let node = clusterNode {
      node.publish(
        .gesture, in: session, source: origin.source, origin: origin, supersedable: e.state.isSupersedable,
        gesture: e, payload: message ?? make())
    }
    if session.tuioObservers > 0 || session.tuio2Observers > 0 { broadcastGestureTUIO(e, origin: origin, in: session) }
  }

  /// `origin` is nil for a state no frame caused (a source's first scene).
  func broadcastScene(_ state: JSONValue, source: String, origin: Origin?, in session: Session) {
    func make() -> OutgoingMessage {
      OutgoingMessage(
        ServerMessage.scene(source: source, state: state, origin: origin, headroom: headroom),
        headroom: headroom, supersedable: true, at: now)
    }
    let message = fanOut(to: session.observers, where: { $0.filter.wants(source: source) }, make)
    if let node = clusterNode {
      node.publish(
        .scene, in: session, source: source, origin: origin, supersedable: true, payload: message ?? make(),
        extra: ServerMessage.sceneState(state))
    }
  }

  func broadcastSourceEvent(_ event: String, _ info: SourceInfo, in session: Session) {
    func make() -> OutgoingMessage {
      OutgoingMessage(
        ServerMessage.sourceEvent(event, info, headroom: headroom), headroom: headroom, supersedable: false,
        at: now)
    }
    let message = fanOut(to: session.observers, where: { $0.filter.wants(source: info.id) }, make)
    if let node = clusterNode {
      node.publish(
        .source, in: session, source: info.id, origin: nil, supersedable: false, arg: event, payload: message ?? make(),
        extra: ServerMessage.sourceInfoJSON(info))
    }
  }

  func sendError(_ e: ProtocolError, to peer: Peer) {
    peer.counts.errorsSent += 1
    counters.error(e.code.rawValue)
    // Errors to a peer that does not read may be dropped (and counted), never block it.
    let bytes = ServerMessage.error(e, headroom: headroom)
    enqueue(OutgoingMessage(bytes, headroom: headroom, supersedable: peer.role == .source, at: now), to: peer)
    erred(peer, at: now)
  }

  func enqueue(_ m: OutgoingMessage, to peer: Peer) {
    guard case .open = peer.lifecycle else { return }
    switch peer.queue.push(m) {
    case .queued: break
    case .queuedWithDrops: countDropped(1, for: peer)
    case .overflow:
      log(.warning, "observer too slow, closing", ["conn": "\(peer.serial)", "queued": "\(peer.queue.count)"])
      close(peer, .policyViolation, "too slow: \(peer.queue.count) undroppable messages pending", drain: false)
      return
    }
    announce(peer)
  }

  /// Counts `n` messages `peer` lost (for `/metrics`) when they are lost, not when the peer
  /// is next told of them: an observer that stopped reading would otherwise show no drops
  /// for as long as it reads nothing. Saturating: a cluster gap may be up to 2^53.
  func countDropped(_ n: Int, for peer: Peer) {
    if peer.role == .observer {
      counters.droppedForObservers = min(counters.droppedForObservers, Int.max - n) + n
    } else {
      counters.droppedForSources = min(counters.droppedForSources, Int.max - n) + n
    }
  }

  /// Tells the driver `peer` has output, unless it was told and has not taken it all yet.
  func announce(_ peer: Peer) {
    guard !peer.announced else { return }
    peer.announced = true
    deliveries.append(peer)
  }

  /// Closes `peer` with `code` once its queue has drained, or as soon as it can be written if
  /// `drain` is false (what was queued is dropped).
  func close(_ peer: Peer, _ code: CloseCode, _ reason: String, drain: Bool) {
    switch peer.lifecycle {
    case .open, .closing: break
    case .peerClosed, .closed: return
    }
    peer.lifecycle = .closing(code, reason: reason)
    if !drain {
      peer.priority.removeAll()
      peer.queue = ObserverQueue(capacity: 1, hardLimit: 1)
    }
    // Always: the driver sends the close once the queue is empty.
    peer.announced = true
    deliveries.append(peer)
  }

  // MARK: - Output

  /// What to write to `peer` next: a `dropped` notice first when messages were dropped since
  /// the last one (then, for an observer, a fresh snapshot of every scene it follows), then
  /// the queue, and once it is empty the close the server decided on, if any. A message is
  /// counted as sent.
  public func nextWrite(for id: PeerID) -> PeerWrite {
    guard let link = directory.peers.unretained(id) else { return .nothing }
    return link._withUnsafeGuaranteedRef { nextWrite(for: $0) }
  }

  private func nextWrite(for peer: Peer) -> PeerWrite {
    switch peer.lifecycle {
    case .open, .closing: break
    case .peerClosed, .closed: return .nothing
    }
    guard let m = takeMessage(peer) else {
      // Taken all: the next message is announced again.
      peer.announced = false
      if case .closing(let code, let reason) = peer.lifecycle { return .close(code, reason: reason) }
      return .nothing
    }
    peer.counts.messagesOut += 1
    counters.messagesOut += 1
    counters.bytesOut += m.payloadCount
    if peer.hasPendingOutput { return .message(m, more: true) }
    peer.announced = false
    return .message(m, more: !peer.isOpen)
  }

  private func takeMessage(_ peer: Peer) -> OutgoingMessage? {
    let missed = peer.queue.takeDropped()
    if missed > 0 {
      // Counted when they were dropped (`countDropped`).
      if peer.role == .observer {
        // After a gap, a fresh snapshot of every scene the observer follows.
        for s in peer.session.activeSources where peer.filter.wants(source: s.info.id) {
          guard let scene = s.engine.sceneState else { continue }
          let bytes = ServerMessage.scene(
            source: s.info.id, state: scene, origin: s.origin(t: s.lastT, rt: s.lastRT), headroom: headroom)
          peer.priority.append(OutgoingMessage(bytes, headroom: headroom, supersedable: true, at: now))
        }
        if let node = clusterNode { peer.priority.append(contentsOf: node.remoteSnapshots(for: peer)) }
      }
      return OutgoingMessage(
        ServerMessage.dropped(count: missed, headroom: headroom), headroom: headroom, supersedable: false, at: now)
    }
    if !peer.priority.isEmpty { return peer.priority.removeFirst() }
    return peer.queue.pop()
  }
}

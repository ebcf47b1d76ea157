import TouchProtocol

/// How peers end: the peer's own close, the server's decision, the socket going away, and the
/// shutdown drain.
extension RelayCore {
  /// What a peer sent that the driver cannot pass on as a message.
  public enum Violation: Sendable {
    /// A binary frame: not part of the protocol (1003).
    case binary
    /// A message over `maxMessageBytes` once decompressed (1009).
    case tooBig
    /// A text message that is not UTF-8 (1007).
    case invalidText
  }

  /// `peer` sent what the protocol does not allow: it is closed at once (nothing more it sent
  /// is read, nothing queued for it is sent).
  public func refuse(_ id: PeerID, _ violation: Violation, at rt: Double) {
    now = rt
    guard let peer = directory.peers[id], case .open = peer.lifecycle else { return }
    stopReading(peer)
    switch violation {
    case .binary:
      close(peer, .unsupportedData, "binary frames are not part of \(protocolName)", drain: false)
    case .tooBig:
      close(peer, .messageTooBig, "message larger than \(configuration.limits.maxMessageBytes) bytes", drain: false)
    case .invalidText:
      close(peer, .invalidPayload, "text is not UTF-8", drain: false)
    }
  }

  /// `peer` sent a close frame with this payload: nothing more is queued for it. Its frame is
  /// echoed (RFC 6455 §5.5.1, by the driver's library) unless an `.answerClose` action asks for
  /// the server's own close instead (a code no endpoint may send or a 1-byte payload: 1002; a
  /// reason that is not UTF-8: 1007).
  public func peerSentClose(_ id: PeerID, payload: UnsafeRawBufferPointer) {
    guard let peer = directory.peers[id] else { return }
    let frame = CloseFrame(payload: payload)
    peerSentClose(peer, code: frame.code)
    switch frame {
    case .empty, .valid: break
    case .protocolError: emit(.answerClose(id, .protocolError, reason: "close code not allowed by RFC 6455"))
    case .invalidReason: emit(.answerClose(id, .invalidPayload, reason: "close reason is not UTF-8"))
    }
  }

  /// `peer` sent a close frame with `code` (if it had one): its library answers it; nothing more
  /// is queued for it.
  public func peerSentClose(_ id: PeerID, code: UInt16?) {
    guard let peer = directory.peers[id] else { return }
    peerSentClose(peer, code: code)
  }

  private func peerSentClose(_ peer: Peer, code: UInt16?) {
    switch peer.lifecycle {
    case .open: peer.lifecycle = .peerClosed(code: code, serverClose: nil)
    case .closing(let ours, _): peer.lifecycle = .peerClosed(code: code, serverClose: ours)
    case .peerClosed, .closed: break
    }
  }

  /// `peer`'s connection is gone: tell everyone who needs to know, and forget it.
  public func closed(_ id: PeerID, at rt: Double) {
    now = rt
    guard let peer = directory.peers[id] else { return }
    let peerCode: UInt16?
    let counted: UInt16?
    switch peer.lifecycle {
    case .closed: return
    case .open:
      peerCode = nil
      counted = nil
    case .closing(let ours, _):
      peerCode = nil
      counted = ours.rawValue
    case .peerClosed(let code, let ours):
      peerCode = code
      counted = ours?.rawValue ?? code
    }
    peer.lifecycle = .closed
    forgetTokenExpiry(peer)
    if configuration.record, peer.role == .source { emit(.record(peer.id, .close(peerCode: peerCode, rt: rt))) }
    counters.close(counted)
    let session = peer.session
    switch peer.role {
    case .observer:
      session.observers.removeAll { $0 === peer }
    case .source:
      session.sources.removeAll { $0 === peer }
      if let state = peer.source {
        disarm(peer, state)
        // The device time of the close, estimated from the latest frame's clock offset.
        let t = max(state.clockOffset.map { rt - $0 } ?? state.lastT, state.lastT)
        let out = state.engine.cancelAll(at: t)
        // Resumed on another cluster node: that node and the others cancel what it had begun
        // for their own observers, and it has not left.
        cluster?.busMuted = state.handedOver
        deliver(out, from: peer, origin: state.origin(t: t, rt: rt))
        cluster?.busMuted = false
        if state.handedOver {
          // Nothing more: the source lives on elsewhere.
        } else if peerCode == 1000 || stopping {
          // A clean close (1000) is a goodbye; anything else may be a dropped network.
          broadcastSourceEvent("left", state.info, in: session)
        } else {
          session.departed[state.info.id] = DepartedSource(
            info: state.info, deadline: rt + configuration.resumeWindow * 1000)
          clusterNode?.publish(
            .departed, in: session, source: state.info.id, origin: nil, supersedable: false, payload: nil,
            extra: ServerMessage.sourceInfoJSON(state.info))
          planSweep()
        }
      }
    }
    log(
      .info, "connection closed",
      [
        "conn": "\(peer.serial)", "role": "\(peer.role.rawValue)", "session": "\(session.name)",
        "in": "\(peer.messagesIn)", "out": "\(peer.messagesOut)", "errors": "\(peer.errorsSent)",
        "dropped": "\(peer.queue.totalDropped)", "peerClose": "\(peerCode.map(String.init) ?? "none")",
      ])
    peer.source = nil
    directory.remove(peer)
    directory.forgetIfEmpty(session)
    if stopping && directory.peers.isEmpty { finish() }
  }

  // MARK: - Shutdown

  /// Stop: no new peers; every peer drains its queue, then gets 1001; whatever is still open
  /// when `drainTimeout` is over is cut.
  public func requestShutdown(at rt: Double) {
    now = rt
    guard !stopping else { return }
    shutdown = .stopping
    log(.info, "shutting down", ["connections": "\(peerCount)"])
    for peer in directory.peersInAdmissionOrder {
      close(peer, .goingAway, "server shutting down", drain: true)
    }
    if directory.peers.isEmpty {
      finish()
    } else {
      timers.set(.drainEnds, rt + configuration.drainTimeout * 1000)
    }
  }

  /// At the drain deadline, anything still open is cut; the driver stops right after.
  func drainDeadlinePassed() {
    timers.set(.drainEnds, nil)
    if !directory.peers.isEmpty {
      log(.warning, "drain deadline passed, cutting connections", ["open": "\(peerCount)"])
      for peer in directory.peersInAdmissionOrder { emit(.kill(peer.id)) }
    }
    finish()
  }

  private func finish() {
    guard !finished else { return }
    shutdown = .finished
    timers.set(.drainEnds, nil)
    emit(.finished)
  }
}

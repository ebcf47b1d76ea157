import TouchProtocol

/// The rate limits on frames (`maxFramesPerSecond` per source) and on `control` messages
/// (`maxControlsPerSecond` per connection: a control that changes a scene is broadcast to every
/// observer of the session, so without a limit one observer could make the server write to
/// thousands). Each is a `RateGate`; this carries out its verdicts (`FloodRules`).
extension RelayCore {
  /// Whether a frame from `peer`'s source passes its rate; reports and pauses as its gate says.
  /// A refused frame is dropped, not queued.
  func admitsFrame(_ frame: Frame, from peer: Peer, _ state: SourceState, at rt: Double) -> Bool {
    let verdict = state.frameGate.take(at: rt)
    if !verdict.admitted { state.lastRateLimitedSeq = frame.seq }
    let admitted = carryOut(
      verdict, on: peer, what: "frame", limit: configuration.limits.maxFramesPerSecond,
      seq: state.lastRateLimitedSeq)
    if let due = state.frameGate.reportDue { owesReport(peer, at: due) }
    return admitted
  }

  /// Whether a `control` from `peer` passes its rate (the gate is made at its first control).
  func admitsControl(from peer: Peer, at rt: Double) -> Bool {
    var gate = peer.flood.controlGate ?? RateGate(perSecond: Double(configuration.limits.maxControlsPerSecond), now: rt)
    let verdict = gate.take(at: rt)
    peer.flood.controlGate = gate
    let admitted = carryOut(
      verdict, on: peer, what: "control", limit: configuration.limits.maxControlsPerSecond, seq: nil)
    if let due = gate.reportDue { owesReport(peer, at: due) }
    return admitted
  }

  private func carryOut(_ v: RateGate.Verdict, on peer: Peer, what: String, limit: Int, seq: Int64?) -> Bool {
    if let n = v.report { reportRefusals(n, what: what, limit: limit, seq: seq, to: peer) }
    if let until = v.pauseUntil { pauseReading(peer, until: until) }
    return v.admitted
  }

  private func reportRefusals(_ n: Int, what: String, limit: Int, seq: Int64?, to peer: Peer) {
    sendError(
      ProtocolError(
        .rateLimited, "more than \(limit) \(what)s per second; \(n) \(what)\(n == 1 ? "" : "s") dropped", seq: seq),
      to: peer)
  }

  /// `peer` has refusals not reported yet, owed their report at `due` (see `RateGate.reportDue`).
  private func owesReport(_ peer: Peer, at due: Double) {
    if !peer.flood.owesReport {
      peer.flood.owesReport = true
      flood.reportsOwed.append(peer)
    }
    timers.setEarlier(.reportsDue, due)
  }

  /// Sends every report whose time has come at `rt`: a peer that went quiet after its last
  /// refusal hears of it within one window (`FloodRules.windowMs`).
  func sendOverdueReports(at rt: Double) {
    guard timers.due(.reportsDue, at: rt) else { return }
    timers.set(.reportsDue, nil)
    let owed = flood.reportsOwed
    flood.reportsOwed.removeAll()
    for peer in owed {
      peer.flood.owesReport = false
      guard peer.isOpen else { continue }
      if let state = peer.source, let n = state.frameGate.takeOverdueReport(at: rt) {
        reportRefusals(
          n, what: "frame", limit: configuration.limits.maxFramesPerSecond, seq: state.lastRateLimitedSeq, to: peer)
      }
      if var gate = peer.flood.controlGate, let n = gate.takeOverdueReport(at: rt) {
        peer.flood.controlGate = gate
        reportRefusals(n, what: "control", limit: configuration.limits.maxControlsPerSecond, seq: nil, to: peer)
      }
      // Still owed (not yet due): listed again.
      if let due = peer.source?.frameGate.reportDue { owesReport(peer, at: due) }
      if let due = peer.flood.controlGate?.reportDue { owesReport(peer, at: due) }
    }
  }
}

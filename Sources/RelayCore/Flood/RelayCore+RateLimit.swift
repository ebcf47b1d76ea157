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
    return carryOut(
      verdict, on: peer, what: "frame", limit: configuration.limits.maxFramesPerSecond,
      seq: state.lastRateLimitedSeq)
  }

  /// Whether a `control` from `peer` passes its rate (the gate is made at its first control).
  func admitsControl(from peer: Peer, at rt: Double) -> Bool {
    var gate = peer.controlGate ?? RateGate(perSecond: Double(configuration.limits.maxControlsPerSecond), now: rt)
    let verdict = gate.take(at: rt)
    peer.controlGate = gate
    return carryOut(verdict, on: peer, what: "control", limit: configuration.limits.maxControlsPerSecond, seq: nil)
  }

  private func carryOut(_ v: RateGate.Verdict, on peer: Peer, what: String, limit: Int, seq: Int64?) -> Bool {
    if let n = v.report {
      sendError(
        ProtocolError(
          .rateLimited, "more than \(limit) \(what)s per second; \(n) \(what)\(n == 1 ? "" : "s") dropped", seq: seq),
        to: peer)
    }
    if let until = v.pauseUntil { pauseReading(peer, until: until) }
    return v.admitted
  }
}

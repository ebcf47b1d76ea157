import TouchProtocol

/// The rate limits on frames (`maxFramesPerSecond` per source) and on `control` messages
/// (`maxControlsPerSecond` per connection: a control that changes a scene is broadcast to every
/// observer of the session, so without a limit one observer could make the server write to
/// thousands). Each is a `RateGate`; this carries out its verdicts.
extension Relay {
  /// Whether a frame from `conn`'s source passes its rate; reports and pauses as its gate says.
  /// A refused frame is dropped, not queued.
  func admitsFrame(_ frame: Frame, from conn: Connection, _ state: SourceState, at rt: Double) -> Bool {
    let verdict = state.frameGate.take(at: rt)
    if !verdict.admitted { state.lastRateLimitedSeq = frame.seq }
    return carryOut(
      verdict, on: conn, what: "frame", limit: config.limits.maxFramesPerSecond, seq: state.lastRateLimitedSeq)
  }

  /// Whether a `control` from `conn` passes its rate (the gate is made at its first control).
  func admitsControl(from conn: Connection, at rt: Double) -> Bool {
    var gate = conn.controlGate ?? RateGate(perSecond: Double(config.limits.maxControlsPerSecond), now: rt)
    let verdict = gate.take(at: rt)
    conn.controlGate = gate
    return carryOut(verdict, on: conn, what: "control", limit: config.limits.maxControlsPerSecond, seq: nil)
  }

  private func carryOut(_ v: RateGate.Verdict, on conn: Connection, what: String, limit: Int, seq: Int64?) -> Bool {
    if let n = v.report {
      sendError(
        ProtocolError(
          .rateLimited, "more than \(limit) \(what)s per second; \(n) \(what)\(n == 1 ? "" : "s") dropped", seq: seq),
        to: conn)
    }
    if let until = v.pauseUntil { pauseReading(conn, until: until) }
    return v.admitted
  }
}

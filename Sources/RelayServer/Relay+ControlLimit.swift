import TouchProtocol

/// `control` messages per second per connection (`maxControlsPerSecond`): a scene control
/// that changes the scene is broadcast to every observer of the session, so without a limit
/// one observer could make the server write to thousands. The excess is dropped with
/// `rate_limited` (at most one per 100 ms, with the count), as for frames.
extension Relay {
  /// Whether a `control` from `conn` at `rt` is within its rate; reports refusals.
  func admitsControl(from conn: Connection, at rt: Double) -> Bool {
    var limiter =
      conn.controlLimiter ?? RateLimiter(perSecond: Double(config.limits.maxControlsPerSecond), now: rt)
    let admitted = limiter.take(at: rt)
    conn.controlLimiter = limiter
    if admitted {
      if conn.controlsRefusedSinceError > 0 { reportControlsRefused(conn, at: rt) }
      return true
    }
    conn.controlsRefusedSinceError += 1
    if rt - conn.lastControlRateError >= Self.rateLimitReportMs { reportControlsRefused(conn, at: rt) }
    refused(conn, by: limiter, at: rt)
    return false
  }

  private func reportControlsRefused(_ conn: Connection, at rt: Double) {
    let n = conn.controlsRefusedSinceError
    conn.controlsRefusedSinceError = 0
    conn.lastControlRateError = rt
    sendError(
      ProtocolError(
        .rateLimited,
        "more than \(config.limits.maxControlsPerSecond) controls per second; \(n) control\(n == 1 ? "" : "s") dropped"
      ), to: conn)
  }
}

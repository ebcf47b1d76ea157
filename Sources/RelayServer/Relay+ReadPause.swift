import CLibWebSockets

/// Reading paused for a peer that floods: once more of its messages were refused by a rate
/// limit (frames over `maxFramesPerSecond`, controls over `maxControlsPerSecond`) within one
/// 100 ms window than that limit allows in a whole second, i.e. it sends over about eleven
/// times its rate, each further refusal in that window stops the server reading its socket
/// until its bucket holds a token again. Its messages then wait in TCP and push back on the
/// sender, instead of each costing the service thread a read and a decode that end in a drop
/// (one source at 270,000 frames/s took a third of the thread and added about 1 ms to other
/// sessions' p99, `tools/faults/run`); and what it is allowed comes one per token, not in
/// bursts. A peer under that bound is read as before: its extra messages are dropped and
/// counted. The same pause, to the end of a 100 ms window, holds a peer sent more than
/// `maxErrorsPerWindow` errors in it (`erred`).
extension Relay {
  /// How often a `rate_limited` error may go out, and how long a flood window lasts.
  static let rateLimitReportMs = 100.0

  /// Counts a message refused by `limiter` in the peer's flood window; when that makes it a
  /// flood, stops reading the peer until `limiter` holds a token again.
  func refused(_ conn: Connection, by limiter: RateLimiter, at rt: Double) {
    if rt - conn.floodWindowStart >= Self.rateLimitReportMs {
      conn.floodWindowStart = rt
      conn.refusedInFloodWindow = 0
    }
    conn.refusedInFloodWindow += 1
    guard Double(conn.refusedInFloodWindow) > limiter.perSecond else { return }
    pauseReading(conn, until: rt + limiter.millisecondsUntilToken(at: rt))
  }

  /// Errors a peer may be sent within one 100 ms window (1,000 a second) before it is not read
  /// for the rest of the window. No client that follows the protocol comes near (a source
  /// with a finger too many at 60 Hz gets 60 a second); a peer sending garbage as fast as its
  /// socket takes it would otherwise cost a decode and an error message each.
  static let maxErrorsPerWindow = 100

  /// Counts an error sent to `conn` in its error window; past `maxErrorsPerWindow`, stops
  /// reading it until the window ends.
  func erred(_ conn: Connection, at rt: Double) {
    if rt - conn.errorWindowStart >= Self.rateLimitReportMs {
      conn.errorWindowStart = rt
      conn.errorsInWindow = 0
    }
    conn.errorsInWindow += 1
    guard conn.errorsInWindow > Self.maxErrorsPerWindow else { return }
    pauseReading(conn, until: conn.errorWindowStart + Self.rateLimitReportMs)
  }

  private func pauseReading(_ conn: Connection, until due: Double) {
    guard conn.readsPausedUntil == nil, let wsi = conn.wsi, let context else { return }
    conn.readsPausedUntil = due
    lws_rx_flow_control(wsi, 0)
    metrics.readPauses += 1
    pausedReaders.append(conn)
    if resumeAt.map({ due < $0 }) ?? true {
      resumeAt = due
      resumeTimer.schedule(context, afterMilliseconds: due - now())
    }
  }

  /// The resume timer fired: reads again every paused peer whose pause is over (unless it is
  /// closing), and sets the timer for the next one.
  func resumeReaders() {
    resumeAt = nil
    let t = now()
    var next: Double?
    pausedReaders.removeAll { conn in
      guard let due = conn.readsPausedUntil else { return true }
      guard due <= t else {
        next = min(next ?? due, due)
        return false
      }
      conn.readsPausedUntil = nil
      if !conn.closed, conn.pendingClose == nil, let wsi = conn.wsi { lws_rx_flow_control(wsi, 1) }
      return true
    }
    if let next, let context {
      resumeAt = next
      resumeTimer.schedule(context, afterMilliseconds: next - t)
    }
  }
}

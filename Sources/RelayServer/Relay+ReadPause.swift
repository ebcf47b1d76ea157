import CLibWebSockets

/// Reading paused for a source that floods: when more of its frames were refused within one
/// `rate_limited` report window (100 ms) than its rate allows in a whole second, i.e. it sends
/// over about eleven times its rate, the server stops reading its socket until that window
/// ends. Its frames then wait in TCP and push back on the sender, instead of each costing the
/// service thread a read and a decode that end in a drop: one source at 270,000 frames/s took
/// a third of the thread and added about 1 ms to other sessions' p99 (`tools/faults/run`).
/// A source under that bound is read as before: its extra frames are dropped and counted.
extension Relay {
  /// How long a report window lasts, and so the longest pause.
  static let rateLimitReportMs = 100.0

  /// Whether `state` has been refused enough frames in the current window to be paused.
  func floods(_ state: SourceState) -> Bool {
    Double(state.rateLimitedSinceError) > state.rateLimiter.perSecond
  }

  /// Stops reading `conn` until the current report window ends.
  func pauseReading(_ conn: Connection, _ state: SourceState) {
    guard state.readsPausedUntil == nil, let wsi = conn.wsi, let context else { return }
    let due = state.lastRateLimitError + Self.rateLimitReportMs
    state.readsPausedUntil = due
    lws_rx_flow_control(wsi, 0)
    metrics.readPauses += 1
    pausedReaders.append(conn)
    if resumeAt.map({ due < $0 }) ?? true {
      resumeAt = due
      resumeTimer.schedule(context, afterMilliseconds: due - now())
    }
  }

  /// The resume timer fired: reads again every paused source whose window has ended (unless
  /// it is closing), and sets the timer for the next one.
  func resumeReaders() {
    resumeAt = nil
    let t = now()
    var next: Double?
    pausedReaders.removeAll { conn in
      guard let state = conn.source, let due = state.readsPausedUntil else { return true }
      guard due <= t else {
        next = min(next ?? due, due)
        return false
      }
      state.readsPausedUntil = nil
      if !conn.closed, conn.pendingClose == nil, let wsi = conn.wsi { lws_rx_flow_control(wsi, 1) }
      return true
    }
    if let next, let context {
      resumeAt = next
      resumeTimer.schedule(context, afterMilliseconds: next - t)
    }
  }
}

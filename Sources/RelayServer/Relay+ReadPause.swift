import CLibWebSockets

/// Reading paused for a peer that floods, so that its messages wait in TCP and push back on
/// the sender instead of each costing the service thread a read and a decode that end in a
/// drop (one source at 270,000 frames/s took a third of the thread and added about 1 ms to
/// other sessions' p99, `tools/faults/run`). A `RateGate` asks for it when a peer sends over
/// about eleven times its rate, until a token is there again, so what it is allowed comes one
/// per token, not in bursts; `erred` when a peer was sent more than `maxErrorsPerWindow` errors
/// in 100 ms, until the window ends.
extension Relay {
  /// Errors a peer may be sent within one 100 ms window (1,000 a second) before it is not read
  /// for the rest of the window. No client that follows the protocol comes near (a source
  /// with a finger too many at 60 Hz gets 60 a second); a peer sending garbage as fast as its
  /// socket takes it would otherwise cost a decode and an error message each.
  static let maxErrorsPerWindow = 100

  /// Counts an error sent to `conn`; past `maxErrorsPerWindow` in its window, stops reading it
  /// until the window ends.
  func erred(_ conn: Connection, at rt: Double) {
    guard conn.errorWindow.add(at: rt) > Self.maxErrorsPerWindow else { return }
    pauseReading(conn, until: conn.errorWindow.end)
  }

  /// Stops reading `conn` (if it is not paused already) until `due`, server ms.
  func pauseReading(_ conn: Connection, until due: Double) {
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

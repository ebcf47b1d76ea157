/// Reading paused for a peer that floods, so that its messages wait in TCP and push back on
/// the sender instead of each costing the driver's thread a read and a decode that end in a
/// drop (PERFORMANCE.md, "Floods"). A `RateGate` asks for it when a peer sends over about
/// `FloodRules.floodFactor` times its rate, until a token is there again; `erred` when a peer
/// was sent more than `FloodRules.maxErrorsPerWindow` errors in one window, until it ends.
extension RelayCore {
  /// Counts an error sent to `peer`; past `FloodRules.maxErrorsPerWindow` in its window, stops
  /// reading it until the window ends.
  func erred(_ peer: Peer, at rt: Double) {
    guard peer.flood.errorWindow.add(at: rt) > FloodRules.maxErrorsPerWindow else { return }
    pauseReading(peer, until: peer.flood.errorWindow.end)
  }

  /// Stops reading `peer` (unless it is paused or stopped already) until `due`, server ms.
  func pauseReading(_ peer: Peer, until due: Double) {
    guard peer.flood.reading == .reading else { return }
    peer.flood.reading = .paused(until: due)
    emit(.pauseReading(peer.id))
    counters.readPauses += 1
    flood.pausedReaders.append(peer)
    timers.setEarlier(.readersResume, due)
  }

  /// Reads again every paused peer whose pause is over at `rt` (unless it is closing).
  func resumeReaders(at rt: Double) {
    guard timers.due(.readersResume, at: rt) else { return }
    var next: Double?
    flood.pausedReaders.removeAll { peer in
      guard case .paused(let until) = peer.flood.reading else { return true }
      guard until <= rt else {
        next = min(next ?? until, until)
        return false
      }
      peer.flood.reading = .reading
      if case .open = peer.lifecycle { emit(.resumeReading(peer.id)) }
      return true
    }
    timers.set(.readersResume, next)
  }

  /// Reads no more of `peer`, which is being closed for what it sent (this bounds the work a
  /// compressed flood can cause).
  func stopReading(_ peer: Peer) {
    guard peer.flood.reading != .stopped else { return }
    peer.flood.reading = .stopped
    emit(.pauseReading(peer.id))
  }
}

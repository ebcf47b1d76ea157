/// Time in the core: what each of `Timers`' timers does when it falls due. Time passes in one
/// way, `advance(to:)`: the driver calls it when each event it brought in is done (with no
/// time: the event's), when the wake-up it was asked for fires, and by its clock when it likes;
/// the core fires what is due and asks for the next wake-up.
extension RelayCore {
  /// See `Timers.deadlineSlackMs`.
  public static var deadlineSlackMs: Double { Timers.deadlineSlackMs }

  /// The earliest time anything is due, if anything is: the driver need not advance time
  /// before it.
  public var nextDue: Double? { timers.nextDue }

  /// Something will fall due (`nextDue` is set).
  public var hasTimers: Bool { !timers.isEmpty }

  /// Whether `advance()` has anything to do (see `Timers.unsettled(now:)`).
  public var timersUnsettled: Bool { timers.unsettled(now: now) }

  /// Server time is `rt` (nil: the time of the last event the core saw, which is what the
  /// driver gives once each event it brought in is done, reading no clock): fires everything
  /// due by then, and asks for the next wake-up (`.wake`) if a timer was set or cleared or the
  /// wake-up asked for is past. A deadline falls due between events; the next event fires it
  /// (on a busy server, within a frame's gap), and the wake-up `deadlineSlackMs` after it does
  /// when none comes: the relay then needs no hook in its loop's every iteration.
  @inline(__always) public func advance(to rt: Double? = nil) {
    let rt = rt ?? now
    now = rt
    timers.passing(rt)
    // After every event: the common case has nothing to do.
    guard timers.unsettled(now: rt) else { return }
    runTimers(at: rt)
  }

  @inline(never) private func runTimers(at rt: Double) {
    if let first = timers.engineDeadlines.earliest, first <= rt {
      while let peer = timers.popEngineDeadline(dueBy: rt) { deadlineFell(peer, at: rt) }
    }
    // Time advances after every event: the common case has nothing else due.
    if let other = timers.otherDue, other <= rt {
      if timers.due(.readersResume, at: rt) { resumeReaders(at: rt) }
      if timers.due(.reportsDue, at: rt) { sendOverdueReports(at: rt) }
      if timers.due(.resumeWindowEnds, at: rt) { sweepDeparted(at: rt) }
      if let due = timers.tokenExpiries.earliest, due <= rt { expireTokens(at: rt) }
      if timers.due(.drainEnds, at: rt) { drainDeadlinePassed() }
    }
    if let at = timers.ranAll(at: rt, planning: !finished) { emit(.wake(at: at)) }
  }

  // MARK: - Engine deadlines

  /// Queues (or moves, or removes) the source's engine deadline, in server time.
  func arm(_ peer: Peer, _ state: SourceState) {
    guard let deadline = state.engine.nextDeadline else {
      if state.armedDeadline != nil { disarm(peer, state) }
      return
    }
    guard deadline != state.armedDeadline else { return }
    let offset = state.clockOffset ?? (state.lastRT - state.lastT)
    state.armedDeadline = deadline
    timers.setEngineDeadline(peer, due: deadline + offset)
  }

  func disarm(_ peer: Peer, _ state: SourceState) {
    timers.removeEngineDeadline(peer)
    state.armedDeadline = nil
  }

  /// A source's queued deadline fell due at `rt`.
  private func deadlineFell(_ peer: Peer, at rt: Double) {
    guard let deadline = peer.source?.armedDeadline else { return }
    peer.source?.armedDeadline = nil
    timerFired(peer, deadline: deadline, at: rt)
  }

  /// `source`'s engine deadline `deadline` (device ms) fell due at server time `rt`: the events
  /// it causes carry the deadline as their device time.
  private func timerFired(_ source: Peer, deadline: Double, at rt: Double) {
    now = rt
    guard let state = source.source else { return }
    if configuration.record { emit(.record(source.id, .timer(deadline: deadline, rt: rt))) }
    let out = state.engine.advance(to: deadline)
    deliver(out, from: source, origin: state.origin(t: deadline, rt: rt))
    arm(source, state)
  }

  // MARK: - Resume windows

  /// When the earliest departed source's window ends (1 ms after, so it has surely ended).
  func planSweep() {
    timers.set(.resumeWindowEnds, sessions.values.flatMap { $0.departed.values.map(\.deadline) }.min().map { $0 + 1 })
  }

  /// Departed sources whose resume window ended are gone: observers get `left`. Sessions by
  /// name, and in each the sources in the order they departed (by deadline, then id): both are
  /// dictionaries, whose order changes from one process to the next (Swift seeds its hashing
  /// per process), and the same events must give the same messages in the same order.
  private func sweepDeparted(at rt: Double) {
    for session in directory.sessionsByName {
      let ended = session.departed.filter { $0.value.deadline <= rt }.sorted {
        ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key)
      }
      for (id, d) in ended {
        session.departed[id] = nil
        broadcastSourceEvent("left", d.info, in: session)
      }
      directory.forgetIfEmpty(session)
    }
    planSweep()
  }
}

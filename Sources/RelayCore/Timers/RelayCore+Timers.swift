/// Time in the core: the sources' engine deadlines (a single tap once the double-tap wait is
/// over, a long press), the end of departed sources' resume windows, paused readers' return,
/// rate-limit reports owed to a peer gone quiet, signed tokens' expiry and the shutdown drain's
/// end. The driver calls `settleTimers()` when each event it brought to the core is done (and
/// `wakeFired(at:)` when the wake-up it was asked for fires); the core fires what is due and
/// asks for the next wake-up.
extension RelayCore {
  /// How long after an engine deadline the wake-up comes: a busy loop settles its timers far
  /// more often than this; an idle one is woken this much later. A wait's timeout under the
  /// kernel's 4 ms tick makes each wake-up dearer (ARCHITECTURE.md, "One deadline queue"), so
  /// no wake-up is asked for closer than this to the present unless something other than an
  /// engine is due.
  public static let deadlineSlackMs = 5.0

  /// The earliest time anything is due, if anything is: the driver need not tick before it.
  public var nextDue: Double? {
    earliest(deadlines.earliest, otherDue)
  }

  /// Something will fall due (`nextDue` is set).
  public var hasTimers: Bool {
    !deadlines.isEmpty || resumeAt != nil || sweepAt != nil || drainDeadline != nil || reportAt != nil
      || !tokenExpiries.isEmpty
  }

  /// A timer was set or cleared: the next `settleTimers` or `tick` plans the wake-up again.
  func timersChanged() {
    timersMoved = true
  }

  /// Whether `settleTimers()` has anything to do: a timer was set or cleared since the last
  /// tick, or what was due then is due by the server time of the last event (`now`) and no
  /// tick ran at that time. A tick fires all that is due at its time, so the last condition
  /// only guards the driver, which settles until this is false, against looping for ever.
  public var timersUnsettled: Bool {
    if timersMoved { return true }
    guard let due = dueAtLastTick, now > tickedAt else { return false }
    return now >= due
  }

  /// Fires what is due by the server time of the last event the core saw, and asks for the
  /// next wake-up if a timer was set or cleared: what the driver calls once each event it
  /// brought in is done, reading no clock. A deadline falls due between events; the next event
  /// fires it (on a busy server, within a frame's gap), and the wake-up `deadlineSlackMs` after
  /// it does when none comes: the relay then needs no hook in its loop's every iteration.
  public func settleTimers() {
    guard timersUnsettled else { return }
    tick(at: now)
  }

  /// The earliest of what is due other than engine deadlines.
  private var otherDue: Double? {
    earliest(earliest(earliest(earliest(resumeAt, sweepAt), drainDeadline), reportAt), tokenExpiries.earliest)
  }

  private func earliest(_ a: Double?, _ b: Double?) -> Double? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
  }

  /// Fires everything due at server time `rt`, then asks for the next wake-up (`.wake`) if it
  /// needs one earlier than the one it has.
  public func tick(at rt: Double) {
    now = rt
    // When no timer was set or cleared since the last tick and the earliest is not due, there
    // is nothing to fire, and the wake-up asked for then still stands.
    if !timersMoved, let due = dueAtLastTick, rt < due { return }
    if let first = deadlines.earliest, first <= rt {
      while let peer = deadlines.popDue(rt) { deadlineFell(peer, at: rt) }
    }
    // Ticks come after every event: the common case has nothing else due.
    if resumeAt != nil || sweepAt != nil || drainDeadline != nil || reportAt != nil || !tokenExpiries.isEmpty {
      resumeReaders(at: rt)
      sendOverdueReports(at: rt)
      if let due = sweepAt, due <= rt { sweepDeparted(at: rt) }
      if let due = tokenExpiries.earliest, due <= rt { expireTokens(at: rt) }
      if let due = drainDeadline, due <= rt { drainDeadlinePassed() }
    }
    planWake(at: rt)
    timersMoved = false
    dueAtLastTick = nextDue
    tickedAt = rt
  }

  /// The wake-up asked for with `.wake` fired.
  public func wakeFired(at rt: Double) {
    wakeAt = nil
    // The wake-up is gone: plan the next even if nothing else changed.
    timersMoved = true
    tick(at: rt)
  }

  /// An engine deadline asks for a wake-up `deadlineSlackMs` after it; anything else at its
  /// time. A wake-up already asked for stays if it comes first and is at least the slack away.
  private func planWake(at rt: Double) {
    guard !finished else { return }
    guard let at = earliest(deadlines.earliest.map { $0 + Self.deadlineSlackMs }, otherDue) else { return }
    if let wakeAt, wakeAt <= at, wakeAt - rt >= Self.deadlineSlackMs { return }
    wakeAt = at
    emit(.wake(at: at))
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
    deadlines.set(peer, due: deadline + offset)
  }

  func disarm(_ peer: Peer, _ state: SourceState) {
    deadlines.remove(peer)
    state.armedDeadline = nil
  }

  /// A source's queued deadline fell due at `rt`.
  private func deadlineFell(_ peer: Peer, at rt: Double) {
    guard let deadline = peer.source?.armedDeadline else { return }
    peer.source?.armedDeadline = nil
    timerFired(peer, deadline: deadline, at: rt)
  }

  /// `source`'s engine deadline `deadline` (device ms) fell due at server time `rt`: the events
  /// it causes carry the deadline as their device time. Replay calls it with recorded times.
  public func timerFired(_ source: Peer, deadline: Double, at rt: Double) {
    now = rt
    guard let state = source.source else { return }
    if configuration.record { emit(.record(source, .timer(deadline: deadline, rt: rt))) }
    let out = state.engine.advance(to: deadline)
    deliver(out, from: source, origin: state.origin(t: deadline, rt: rt))
    arm(source, state)
  }

  // MARK: - Resume windows

  /// When the earliest departed source's window ends (1 ms after, so it has surely ended).
  func planSweep() {
    sweepAt = sessions.values.flatMap { $0.departed.values.map(\.deadline) }.min().map { $0 + 1 }
  }

  /// Departed sources whose resume window ended are gone: observers get `left`. Sessions by
  /// name, and in each the sources in the order they departed (by deadline, then id): both are
  /// dictionaries, whose order changes from one process to the next (Swift seeds its hashing
  /// per process), and the same events must give the same messages in the same order.
  private func sweepDeparted(at rt: Double) {
    for session in sessions.values.sorted(by: { $0.name < $1.name }) {
      let ended = session.departed.filter { $0.value.deadline <= rt }.sorted {
        ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key)
      }
      for (id, d) in ended {
        session.departed[id] = nil
        broadcastSourceEvent("left", d.info, in: session)
      }
      if session.isEmpty { sessions[session.name] = nil }
    }
    planSweep()
  }
}

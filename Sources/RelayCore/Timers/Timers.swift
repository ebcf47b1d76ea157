/// Every timer of the core, and the wake-up it asks the driver for: the one owner of time.
///
/// The sources' engine deadlines (a single tap once the double-tap wait is over, a long press)
/// sit in one heap; signed tokens' expiries in another; the few timers that are one time each
/// (paused readers' return, rate-limit reports owed, the end of the earliest resume window, the
/// shutdown drain's end) are named `Slot`s. Every change goes through a method here, which
/// notes that the wake plan must be looked at again (`moved`): nothing else sets a timer.
/// The parts that own what a timer is for (flood rules, peers) say when it is due; the core
/// asks which are due (`due(_:at:)`) and fires them.
struct Timers {
  /// The timers that are one server time each.
  enum Slot {
    /// The first paused reader is due back.
    case readersResume
    /// The first owed rate-limit report is due.
    case reportsDue
    /// The earliest departed source's resume window ends.
    case resumeWindowEnds
    /// The shutdown drain ends.
    case drainEnds
  }

  /// How long after an engine deadline the wake-up comes: a busy loop settles its timers far
  /// more often than this; an idle one is woken this much later. A wait's timeout under the
  /// kernel's 4 ms tick makes each wake-up dearer (ARCHITECTURE.md, "One deadline queue"), so
  /// no wake-up is asked for closer than this to the present unless something other than an
  /// engine is due.
  static let deadlineSlackMs = 5.0

  /// The sources' engine deadlines, in server ms.
  private(set) var engineDeadlines = DeadlineQueue<Peer>()
  /// When the signed tokens of open peers expire, in server ms.
  private(set) var tokenExpiries = DeadlineQueue<TokenExpiry>()
  private var slots: (Double?, Double?, Double?, Double?) = (nil, nil, nil, nil)
  /// The earliest of everything but the engine deadlines, kept as they change: every event
  /// asks, and it is nearly always nil.
  private(set) var otherDue: Double?

  /// A timer was set or cleared since the last full run, which left `nextDue` as `dueAtLastRun`.
  private(set) var moved = true
  private var dueAtLastRun: Double?
  /// The server time of the last full run: running again at that time has nothing to fire.
  private var ranAt = -Double.infinity
  /// The wake-up the driver was last asked for (`.wake`), until it fires.
  private var wakeAt: Double?

  // MARK: - Setting

  @inline(__always) subscript(slot: Slot) -> Double? {
    switch slot {
    case .readersResume: slots.0
    case .reportsDue: slots.1
    case .resumeWindowEnds: slots.2
    case .drainEnds: slots.3
    }
  }

  /// Sets (or with nil clears) `slot`.
  mutating func set(_ slot: Slot, _ due: Double?) {
    switch slot {
    case .readersResume: slots.0 = due
    case .reportsDue: slots.1 = due
    case .resumeWindowEnds: slots.2 = due
    case .drainEnds: slots.3 = due
    }
    otherChanged()
  }

  /// Moves `slot` to `due` if that is earlier than what it holds (or it holds nothing).
  mutating func setEarlier(_ slot: Slot, _ due: Double) {
    if let held = self[slot], held <= due { return }
    set(slot, due)
  }

  /// Queues (or moves) `peer`'s engine deadline.
  @inline(__always) mutating func setEngineDeadline(_ peer: Peer, due: Double) {
    engineDeadlines.set(peer, due: due)
    moved = true
  }

  mutating func removeEngineDeadline(_ peer: Peer) {
    engineDeadlines.remove(peer)
    moved = true
  }

  /// The earliest source whose engine deadline is due by `rt`, taken out of the queue.
  mutating func popEngineDeadline(dueBy rt: Double) -> Peer? {
    guard let peer = engineDeadlines.popDue(rt) else { return nil }
    moved = true
    return peer
  }

  mutating func setTokenExpiry(_ expiry: TokenExpiry, due: Double) {
    tokenExpiries.set(expiry, due: due)
    otherChanged()
  }

  mutating func removeTokenExpiry(_ expiry: TokenExpiry) {
    tokenExpiries.remove(expiry)
    otherChanged()
  }

  mutating func popTokenExpiry(dueBy rt: Double) -> TokenExpiry? {
    guard let expiry = tokenExpiries.popDue(rt) else { return nil }
    otherChanged()
    return expiry
  }

  /// The one list of the timers other than engine deadlines.
  private mutating func otherChanged() {
    moved = true
    otherDue = Self.earliest(
      Self.earliest(Self.earliest(Self.earliest(tokenExpiries.earliest, slots.0), slots.1), slots.2), slots.3)
  }

  // MARK: - Asking

  /// The earliest time anything is due, if anything is.
  @inline(__always) var nextDue: Double? { Self.earliest(engineDeadlines.earliest, otherDue) }

  /// Something will fall due.
  @inline(__always) var isEmpty: Bool { engineDeadlines.isEmpty && otherDue == nil }

  /// Whether `slot` is due by `rt`.
  @inline(__always) func due(_ slot: Slot, at rt: Double) -> Bool {
    guard let due = self[slot] else { return false }
    return due <= rt
  }

  /// Whether running the timers at `now` (the last event's time) has anything to do: a timer
  /// was set or cleared since the last run, or what was due then is due by `now` and no run
  /// happened at that time. A run fires all that is due at its time, so the last condition only
  /// guards a driver that runs until this is false against looping for ever.
  @inline(__always) func unsettled(now: Double) -> Bool {
    if moved { return true }
    guard let due = dueAtLastRun, now > ranAt else { return false }
    return now >= due
  }

  // MARK: - The wake plan

  /// Time is `rt`: a wake-up asked for by then has fired (or its timer will find nothing), so
  /// the plan is made again even if nothing else changed.
  @inline(__always) mutating func passing(_ rt: Double) {
    guard let wakeAt, wakeAt <= rt else { return }
    self.wakeAt = nil
    moved = true
  }

  /// Ends a run at `rt`: the wake-up to ask the driver for, if the one it has will not do. An
  /// engine deadline asks for a wake-up `deadlineSlackMs` after it; anything else at its time.
  /// A wake-up already asked for stays if it comes first and is at least the slack away.
  mutating func ranAll(at rt: Double, planning: Bool) -> Double? {
    defer {
      moved = false
      dueAtLastRun = nextDue
      ranAt = rt
    }
    guard planning, let at = Self.earliest(engineDeadlines.earliest.map { $0 + Self.deadlineSlackMs }, otherDue)
    else { return nil }
    if let wakeAt, wakeAt <= at, wakeAt - rt >= Self.deadlineSlackMs { return nil }
    wakeAt = at
    return at
  }

  @inline(__always) static func earliest(_ a: Double?, _ b: Double?) -> Double? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
  }
}

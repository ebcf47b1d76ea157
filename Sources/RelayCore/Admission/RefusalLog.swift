/// Which refused upgrades get a log line: at most one per client address per `interval`, so an
/// operator learns that a limit bites (behind a proxy, for a whole site) without a client that
/// retries in a loop flooding the log. Each line says how many refusals of that address went
/// unlogged since its last one. Holds one entry per address refused within the last two intervals.
struct RefusalLog {
  /// Server milliseconds between two lines about one address.
  static let interval: Double = 60_000

  private var entries: [String: (loggedAt: Double, unlogged: Int)] = [:]
  private var sweptAt: Double = -.infinity

  /// A refusal of `address` at server time `rt`: nil when it goes unlogged, else how many of
  /// its refusals went unlogged since its last line.
  mutating func refused(_ address: String, at rt: Double) -> Int? {
    sweep(at: rt)
    if var entry = entries[address], rt - entry.loggedAt < Self.interval {
      entry.unlogged += 1
      entries[address] = entry
      return nil
    }
    let unlogged = entries[address]?.unlogged ?? 0
    entries[address] = (rt, 0)
    return unlogged
  }

  /// Once an interval, forgets the addresses whose line is older than two: one refused again
  /// within two intervals of its line still gets its count of unlogged refusals.
  private mutating func sweep(at rt: Double) {
    guard rt - sweptAt >= Self.interval else { return }
    sweptAt = rt
    entries = entries.filter { rt - $0.value.loggedAt < 2 * Self.interval }
  }
}

/// One kind of message from one peer under a rate limit, and what its refusals owe: a
/// `rate_limited` report at most once per 100 ms among the refusals, with the count (what is
/// left goes out with the next message that passes, so a flood gets at most one report per
/// message it gets through), so a flood does not buy an error per message; and, once
/// more are refused within 100 ms than the limit allows in a whole second (the peer sends over
/// about eleven times its rate), a pause in reading the peer until a token is there again
/// (`RelayCore.pauseReading`; the thresholds are `FloodRules`). Frames per source and controls per connection each have one.
struct RateGate {
  private var limiter: RateLimiter
  private var unreported = 0
  private var lastReport = -Double.infinity
  private var refusals = WindowCount()

  init(perSecond: Double, now: Double) {
    limiter = RateLimiter(perSecond: perSecond, now: now)
  }

  /// What a message gets: through or not; refusals to report now, if any; and, when the peer
  /// floods, until when not to read it.
  struct Verdict {
    let admitted: Bool
    let report: Int?
    let pauseUntil: Double?
  }

  /// Judges a message that arrived at server time `rt` (ms).
  mutating func take(at rt: Double) -> Verdict {
    if limiter.take(at: rt) {
      return Verdict(admitted: true, report: unreported > 0 ? takeReport(at: rt) : nil, pauseUntil: nil)
    }
    unreported += 1
    let report = rt - lastReport >= WindowCount.ms ? takeReport(at: rt) : nil
    let floods = Double(refusals.add(at: rt)) > limiter.perSecond
    return Verdict(
      admitted: false, report: report, pauseUntil: floods ? rt + limiter.millisecondsUntilToken(at: rt) : nil)
  }

  /// When the refusals not reported yet are owed their report, if any are: one window after the
  /// last report, so a peer that falls quiet after a flood still hears how much it lost.
  var reportDue: Double? {
    unreported > 0 ? lastReport + WindowCount.ms : nil
  }

  /// The count of refusals owed a report at `rt`, if their time has come (see `reportDue`).
  mutating func takeOverdueReport(at rt: Double) -> Int? {
    guard let due = reportDue, due <= rt else { return nil }
    return takeReport(at: rt)
  }

  private mutating func takeReport(at rt: Double) -> Int {
    defer {
      unreported = 0
      lastReport = rt
    }
    return unreported
  }
}

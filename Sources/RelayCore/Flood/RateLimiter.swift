/// A token bucket in server time: `perSecond` tokens a second, holding at most one second's
/// worth, so a phone's frames bunched by the network pass while a flood does not.
struct RateLimiter {
  let perSecond: Double
  private var tokens: Double
  private var last: Double

  init(perSecond: Double, now: Double) {
    self.perSecond = perSecond
    tokens = perSecond
    last = now
  }

  /// Milliseconds from server time `now` until the bucket holds a token (0 if it does).
  func millisecondsUntilToken(at now: Double) -> Double {
    let held = min(perSecond, tokens + max(0, now - last) / 1000 * perSecond)
    return held >= 1 ? 0 : (1 - held) / perSecond * 1000
  }

  /// Takes one token at server time `now` (ms); false when the bucket is empty.
  mutating func take(at now: Double) -> Bool {
    tokens = min(perSecond, tokens + max(0, now - last) / 1000 * perSecond)
    last = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}

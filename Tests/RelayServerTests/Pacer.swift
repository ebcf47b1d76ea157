import Foundation

/// Paces a sender on purpose: a 60 Hz finger, a stream every 10 ms. Not a wait for the server.
/// Each `next()` returns one period after the last tick, on a fixed schedule while it keeps
/// up; a tick that comes late is not made up for with a burst (on a busy machine a burst
/// would be more than the test asked the server to take).
struct Pacer {
  let every: Duration
  private var last: ContinuousClock.Instant?

  init(every: Duration) { self.every = every }

  mutating func next() async throws {
    let now = ContinuousClock.now
    let tick = max((last ?? now) + every, now)
    last = tick
    try await Task.sleep(until: tick)
  }
}

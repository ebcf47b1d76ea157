import Foundation

/// Paces a sender on purpose: a 60 Hz finger, a stream every 10 ms. Not a wait for the server;
/// each `next()` returns at the next tick of a fixed schedule from the first call, so a late
/// tick does not push the ones after it back.
struct Pacer {
  let every: Duration
  private var start: ContinuousClock.Instant?
  private var ticks = 0

  init(every: Duration) { self.every = every }

  mutating func next() async throws {
    let start = self.start ?? ContinuousClock.now
    self.start = start
    ticks += 1
    try await Task.sleep(until: start + every * ticks)
  }
}

import TouchProtocol

/// A source connection's protocol state once it has said hello.
final class SourceState {
  var info: SourceInfo
  // Unchecked exclusivity: see the comment on `Relay.batched`.
  @exclusivity(unchecked) var validator = SourceValidator()
  let engine: any GestureProcessor
  /// Server ms minus device ms on the latest frame: maps engine deadlines to server time.
  var clockOffset: Double?
  var lastSeq: Int64 = 0
  var lastT: Double = 0
  var lastRT: Double = 0
  /// The engine deadline (device time) the relay's `DeadlineQueue` holds for it, if any.
  var armedDeadline: Double?

  /// Frames per second allowed from this source.
  @exclusivity(unchecked) var rateLimiter: RateLimiter
  /// Frames refused since the last `rate_limited` error, and when that error went out.
  var rateLimitedSinceError = 0
  var lastRateLimitedSeq: Int64 = 0
  var lastRateLimitError = -Double.infinity

  init(info: SourceInfo, engine: any GestureProcessor, rateLimiter: RateLimiter) {
    self.info = info
    self.engine = engine
    self.rateLimiter = rateLimiter
  }

  /// The origin stamped on messages caused by this source without a new frame.
  func origin(t: Double, rt: Double) -> Origin {
    Origin(source: info.id, seq: lastSeq, t: t, rt: rt)
  }
}

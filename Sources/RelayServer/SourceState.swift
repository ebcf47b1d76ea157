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

  /// Frames per second allowed from this source, and the `seq` of the last it refused (named
  /// in the `rate_limited` error).
  @exclusivity(unchecked) var frameGate: RateGate
  var lastRateLimitedSeq: Int64 = 0

  init(info: SourceInfo, engine: any GestureProcessor, frameGate: RateGate) {
    self.info = info
    self.engine = engine
    self.frameGate = frameGate
  }

  /// The origin stamped on messages caused by this source without a new frame.
  func origin(t: Double, rt: Double) -> Origin {
    Origin(source: info.id, seq: lastSeq, t: t, rt: rt)
  }
}

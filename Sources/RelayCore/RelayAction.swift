/// What the core asks its driver to do. Collected in order; see `RelayCore.drainActions`.
public enum RelayAction {
  /// `peer` has messages (or its close) to send: write what `nextMessage(for:)` gives, now or
  /// when the socket can take it; once it gives nothing, send `peer.closeToSend` if set.
  case output(Peer)
  /// Stop reading `peer` (it floods, or is being closed) until `.resumeReading`.
  case pauseReading(Peer)
  case resumeReading(Peer)
  /// Cut `peer` without waiting for its close handshake (the shutdown drain is over).
  case kill(Peer)
  /// Call `tick(at:)` at this server time at the latest (`wakeFired(at:)` when it fires). A
  /// later `.wake` replaces an earlier one.
  case wake(at: Double)
  /// Shutdown is complete: stop serving.
  case finished
  case log(LogLine)
  /// With `Configuration.record`: a line of `peer`'s recording.
  case record(Peer, RecordEntry)
}

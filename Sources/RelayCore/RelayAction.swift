/// What the core asks its driver to do. Collected in order; see `RelayCore.drainActions`.
/// The per-message one, "this peer has output", is listed apart (`RelayCore.drainOutputs`).
public enum RelayAction {
  /// Stop reading `peer` (it floods, or is being closed) until `.resumeReading`.
  case pauseReading(Peer)
  case resumeReading(Peer)
  /// Cut `peer` without waiting for its close handshake (the shutdown drain is over).
  case kill(Peer)
  /// Call `advance(to:)` at this server time at the latest. A later `.wake` replaces an
  /// earlier one.
  case wake(at: Double)
  /// Shutdown is complete: stop serving.
  case finished
  case log(LogLine)
  /// With `Configuration.record`: a line of `peer`'s recording.
  case record(Peer, RecordEntry)
  /// Cluster: subscribe to (or leave) another node's data channel; confirm with
  /// `busSubscribed(node:at:)`.
  case busSubscribe(node: String)
  case busUnsubscribe(node: String)
  /// Cluster: publish this on the nodes' channel.
  case busNotice([UInt8])
}

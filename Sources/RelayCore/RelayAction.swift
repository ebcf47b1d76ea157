import TouchProtocol

/// What the core asks its driver to do. Collected in order; see `RelayCore.drainActions`.
/// The per-message one, "this peer has output", is listed apart (`RelayCore.drainOutputs`).
public enum RelayAction {
  /// Stop reading `peer` (it floods, or is being closed) until `.resumeReading`.
  case pauseReading(PeerID)
  case resumeReading(PeerID)
  /// Cut `peer` without waiting for its close handshake (the shutdown drain is over).
  case kill(PeerID)
  /// Call `advance(to:)` at this server time at the latest. A later `.wake` replaces an
  /// earlier one.
  case wake(at: Double)
  /// Shutdown is complete: stop serving.
  case finished
  case log(LogLine)
  /// With `Configuration.record`: a line of `peer`'s recording.
  case record(PeerID, RecordEntry)
  /// Cluster: subscribe to (or leave) another node's data channel; confirm with
  /// `busSubscribed(node:at:)`.
  case busSubscribe(node: String)
  case busUnsubscribe(node: String)
  /// Cluster: publish this on the nodes' channel.
  case busNotice([UInt8])
  /// Answer the upgrade request `admit` was asked about with this response instead of
  /// upgrading. No such action: the upgrade proceeds. The driver needs the answer before its
  /// callback returns, so it drains the actions right after `admit`.
  case refuseUpgrade(RequestID, HTTPResponse)
  /// Answer `peer`'s close frame (`peerSentClose(_:payload:)`) with this close instead of
  /// echoing it, and hang up at once: the peer's frame broke RFC 6455. No such action: echo
  /// it. Drained right after `peerSentClose`, as `.refuseUpgrade` is after `admit`.
  case answerClose(PeerID, CloseCode, reason: String)
}

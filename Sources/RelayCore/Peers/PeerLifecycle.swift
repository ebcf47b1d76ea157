import TouchProtocol

/// Where a peer's connection is in its life. Messages are queued only while `open`; a peer
/// the server is closing gets what it had queued (unless cut short), then the close.
public enum PeerLifecycle: Sendable {
  case open
  /// The server decided to close with `code` once the queue is drained.
  case closing(CloseCode, reason: String)
  /// The peer sent a close frame (`code`, if it had one); the driver's library answers it.
  /// `serverClose` is the close the server had decided on before, if any (for the metrics).
  case peerClosed(code: UInt16?, serverClose: CloseCode?)
  /// Gone; the core has forgotten it.
  case closed
}

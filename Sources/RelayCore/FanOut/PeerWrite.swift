import TouchProtocol

/// What the driver is to write to a peer next (`RelayCore.nextWrite(for:)`): the one way the
/// core's output reaches a connection, so the driver reads no state of the peer's.
public enum PeerWrite {
  /// A message to send; `more`: call again after it (another message, or the close, follows).
  case message(OutgoingMessage, more: Bool)
  /// Nothing is left to send: close with `code` and `reason`. It stays the answer until the
  /// driver reports the peer `closed`.
  case close(CloseCode, reason: String)
  /// Nothing to send now (or the connection can no longer be written to).
  case nothing
}

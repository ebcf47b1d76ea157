/// Whether the driver reads a peer's socket. A peer that floods is not read for a while, so its
/// messages wait in TCP and push back on the sender; a peer being closed is not read again.
public enum ReadState: Sendable, Equatable {
  case reading
  /// Paused until this server time (see `RelayCore.pauseReading`).
  case paused(until: Double)
  /// Never read again (the server is closing it).
  case stopped
}

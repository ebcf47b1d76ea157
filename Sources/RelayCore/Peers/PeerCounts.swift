/// What a peer sent and was sent, for its log line and `/metrics`.
public struct PeerCounts: Sendable {
  public internal(set) var messagesIn = 0
  public internal(set) var messagesOut = 0
  public internal(set) var errorsSent = 0
}

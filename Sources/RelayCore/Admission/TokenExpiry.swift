/// When a peer admitted with a signed token must go: its place in the core's queue of token
/// expiries (a `DeadlineQueue` of its own, since a source's one queue index is its engine's).
final class TokenExpiry: DeadlineQueueItem {
  unowned let peer: Peer
  var deadlineIndex: Int?

  init(peer: Peer) {
    self.peer = peer
  }
}

/// When a peer admitted with a signed token must go: its place in the core's queue of token
/// expiries (a `DeadlineQueue` of its own, since a source's one queue index is its engine's).
final class TokenExpiry: DeadlineQueueItem {
  unowned let peer: Peer
  /// Server ms.
  let due: Double
  var deadlineIndex: Int?

  init(peer: Peer, due: Double) {
    self.peer = peer
    self.due = due
  }
}

/// The fan-out's own state: the peers with output the driver has not been told of, and the
/// messages written to their last peer, kept to write the next ones into (`MessagePool`).
/// The per-peer queues are the peers' (`Peer.queue`); what each observer gets is decided by
/// `RelayCore.fanOut`, the one path every delivery takes (local, TUIO and remote alike).
final class Deliveries {
  /// Peers with output the driver has not been told of (see `drain`), and the list being
  /// handed over (both reused).
  private var outputs = PeerList()
  private var drainingOutputs = PeerList()
  /// Set while `drain` hands peers over (see `ActionList.drain`: the same reason).
  private var handingOver = false
  var messagePool = MessagePool()

  var isEmpty: Bool { outputs.isEmpty }

  /// `peer` has output the driver has not been told of.
  @inline(__always) func append(_ peer: Peer) { outputs.append(peer) }

  /// Hands `body` every peer with output since the last call, each once.
  func drain(_ body: (Peer) -> Void) {
    guard !handingOver else { return }
    handingOver = true
    defer { handingOver = false }
    while !outputs.isEmpty {
      // Peers announced meanwhile go to the other list, handed over next time round.
      swap(&outputs, &drainingOutputs)
      drainingOutputs.drain(body)
    }
  }
}

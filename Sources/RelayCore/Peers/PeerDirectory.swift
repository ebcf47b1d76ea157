/// The core's peers and sessions: every open peer until it is closed, the sessions by name
/// (made with their first peer, forgotten with their last), how many peers each client address
/// has open (for the per-address limit), and the numbers that name new peers and sources.
struct PeerDirectory {
  private(set) var sessions: [String: Session] = [:]
  /// Every open peer by id (strong references), until `remove`.
  private(set) var peers = PeerTable()
  /// Open peers per client address.
  private(set) var peersByAddress: [String: Int] = [:]
  private var nextSerial = 1
  private var nextSourceNumber = 1
  /// A recording's replay gives the recorded source its recorded id.
  var fixedSourceID: String?

  /// The session named `name`, made if there is none.
  mutating func session(named name: String) -> Session {
    if let s = sessions[name] { return s }
    let s = Session(name: name)
    sessions[name] = s
    return s
  }

  /// Forgets `session` if nothing is left in it.
  mutating func forgetIfEmpty(_ session: Session) {
    if session.isEmpty { sessions[session.name] = nil }
  }

  /// The serial the next peer gets.
  mutating func takeSerial() -> Int {
    defer { nextSerial += 1 }
    return nextSerial
  }

  mutating func add(_ peer: Peer) {
    peers.add(peer)
    peersByAddress[peer.address, default: 0] += 1
  }

  mutating func remove(_ peer: Peer) {
    peers.remove(peer)
    if let n = peersByAddress[peer.address] {
      peersByAddress[peer.address] = n > 1 ? n - 1 : nil
    }
  }

  /// The id a new source gets: the replay's, or the next number (with the node's name in a
  /// cluster, so it is unique there without asking anyone).
  mutating func newSourceID(node: String?) -> String {
    if let fixedSourceID { return fixedSourceID }
    defer { nextSourceNumber += 1 }
    if let node { return "\(node).s\(nextSourceNumber)" }
    return "s\(nextSourceNumber)"
  }

  /// Every open peer, oldest first (slots are reused, so their order is not the peers' age),
  /// for the closes and kills of a shutdown.
  var peersInAdmissionOrder: [Peer] {
    peers.all.sorted { $0.serial < $1.serial }
  }

  /// The sessions by name, for what goes over all of them in an order that must not depend
  /// on the process (see `peersInAdmissionOrder`).
  var sessionsByName: [Session] {
    sessions.values.sorted { $0.name < $1.name }
  }
}

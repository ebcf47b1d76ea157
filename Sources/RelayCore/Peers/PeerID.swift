/// How a driver names a peer: its slot in the core's table of open peers (`PeerTable`) and
/// that slot's generation. A slot is used again once its peer is closed, with the next
/// generation, so an id the driver kept past `closed` names no one rather than a newer peer:
/// every event for it is ignored. The driver can index its own table by `slot`.
public struct PeerID: Hashable, Sendable, CustomStringConvertible {
  public let slot: Int
  public let generation: UInt32

  public init(slot: Int, generation: UInt32) {
    self.slot = slot
    self.generation = generation
  }

  public var description: String { "peer \(slot).\(generation)" }
}

/// The open peers by `PeerID`: a slot each, reused (with its generation advanced) once its
/// peer is closed, so looking a peer up is an index and a compare, and the slots stay as few
/// as the most peers ever open at once.
struct PeerTable {
  private struct Slot {
    var peer: Peer?
    var generation: UInt32
  }

  private var slots: [Slot] = []
  /// Free slots, the most recently freed last (taken first: its line is the warmest).
  private var free: [Int] = []
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }

  /// The id the next peer added gets.
  var nextID: PeerID {
    if let slot = free.last { return PeerID(slot: slot, generation: slots[slot].generation) }
    return PeerID(slot: slots.count, generation: 0)
  }

  /// Adds `peer`, whose id is `nextID`.
  mutating func add(_ peer: Peer) {
    let id = peer.id
    if id.slot == slots.count {
      slots.append(Slot(peer: peer, generation: id.generation))
    } else {
      precondition(free.last == id.slot && slots[id.slot].generation == id.generation, "not the next id")
      free.removeLast()
      slots[id.slot].peer = peer
    }
    count += 1
  }

  /// The open peer `id` names, if it is still open.
  @inline(__always) subscript(id: PeerID) -> Peer? {
    guard id.slot < slots.count else { return nil }
    let slot = slots[id.slot]
    guard slot.generation == id.generation else { return nil }
    return slot.peer
  }

  /// The open peer `id` names, unretained: what the per-message entry points look a peer up
  /// with (`receive`, `nextWrite`), through `_withUnsafeGuaranteedRef`, so that finding it
  /// costs no reference counting (a strong copy cost a retain and a release per message). Safe
  /// while the peer stays in the table, which only `RelayCore.closed` ends; neither entry point
  /// can reach it.
  @inline(__always) func unretained(_ id: PeerID) -> Unmanaged<Peer>? {
    guard id.slot < slots.count, slots[id.slot].generation == id.generation else { return nil }
    return slots[id.slot].peer.map { .passUnretained($0) }
  }

  /// Forgets `peer`; its id names no one from now on.
  mutating func remove(_ peer: Peer) {
    let id = peer.id
    guard id.slot < slots.count, slots[id.slot].generation == id.generation, slots[id.slot].peer != nil else {
      return
    }
    slots[id.slot].peer = nil
    slots[id.slot].generation &+= 1
    free.append(id.slot)
    count -= 1
  }

  /// Every open peer, in slot order.
  var all: [Peer] { slots.compactMap(\.peer) }
}

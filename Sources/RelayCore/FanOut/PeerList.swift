/// The peers with output the driver has not been told of (`RelayCore.outputs`), in order:
/// strong references in raw memory, each moved out to the driver as it is handed over. As an
/// `[Peer]`, each hand-over (about one per message received) cost a copy of the array, a
/// retain and a release, and emptying it a call into the runtime's generic array destroy.
struct PeerList: ~Copyable {
  private var base: UnsafeMutablePointer<Peer>
  private var count = 0
  private var capacity: Int

  init(capacity: Int = 16) {
    self.capacity = max(capacity, 1)
    base = .allocate(capacity: self.capacity)
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  var isEmpty: Bool { count == 0 }

  mutating func append(_ peer: Peer) {
    if count == capacity { grow() }
    (base + count).initialize(to: peer)
    count += 1
  }

  /// Hands `body` every peer in order, each moved out of the list, which is empty after.
  /// `body` must not append to this list (the core hands over one list and appends to another).
  mutating func drain(_ body: (Peer) -> Void) {
    let n = count
    count = 0
    for i in 0..<n { body((base + i).move()) }
  }

  @inline(never) private mutating func grow() {
    let grown = UnsafeMutablePointer<Peer>.allocate(capacity: 2 * capacity)
    grown.moveInitialize(from: base, count: count)
    base.deallocate()
    base = grown
    capacity *= 2
  }
}

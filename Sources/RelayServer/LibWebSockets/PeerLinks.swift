import RelayCore

/// The driver's connections by the core's `PeerID`: its slot indexes this table, its
/// generation tells a reused slot from the one the id was given for. Unretained: the wsi's
/// opaque user data holds each `LWSPeer` from LWS_CALLBACK_ESTABLISHED to LWS_CALLBACK_CLOSED,
/// which removes it from here, so finding one costs no reference counting.
struct PeerLinks {
  private var links: [(link: Unmanaged<LWSPeer>, generation: UInt32)?] = []

  mutating func add(_ link: LWSPeer) {
    let id = link.peer
    if id.slot >= links.count { links.append(contentsOf: repeatElement(nil, count: id.slot - links.count + 1)) }
    links[id.slot] = (Unmanaged.passUnretained(link), id.generation)
  }

  mutating func remove(_ id: PeerID) {
    guard id.slot < links.count, links[id.slot]?.generation == id.generation else { return }
    links[id.slot] = nil
  }

  /// Every connection, in slot order.
  func forEach(_ body: (LWSPeer) -> Void) {
    for case let entry? in links { entry.link._withUnsafeGuaranteedRef(body) }
  }

  /// The connection of `id`, if it has one (TUIO's peers have none), unretained: the caller
  /// uses it with `_withUnsafeGuaranteedRef` (see `LWSDriver.with`).
  @inline(__always) subscript(id: PeerID) -> Unmanaged<LWSPeer>? {
    guard id.slot < links.count, let entry = links[id.slot], entry.generation == id.generation else { return nil }
    return entry.link
  }
}

import TouchProtocol

/// Messages written to their last peer that nothing refers to any more, kept with their
/// buffers: the next `touches` or `gesture` message is written into one of them rather than
/// into a new object and a new buffer: two allocations and two frees a message fewer
/// (PERFORMANCE.md, "Measurements that code comments used to carry").
///
/// The driver hands a message back (`RelayCore.recycle`) once it has written it; the pool keeps
/// it only if that was the last reference (a fan-out's message comes back from each observer,
/// and only the last is kept), up to `limit` messages of at most `maxBytes` each, so what it
/// holds stays small: about one message per frame in flight.
struct MessagePool {
  private var free: [OutgoingMessage] = []
  let limit: Int
  let maxBytes: Int

  init(limit: Int = 64, maxBytes: Int = 4096) {
    self.limit = limit
    self.maxBytes = maxBytes
  }

  /// Messages kept for reuse.
  var count: Int { free.count }

  /// Keeps `message` if nothing else refers to it and there is room.
  mutating func recycle(_ message: consuming OutgoingMessage) {
    var m = message
    guard free.count < limit, m.storageCapacity <= maxBytes, isKnownUniquelyReferenced(&m) else { return }
    free.append(m)
  }

  /// The message `write` writes: into a kept message's buffer if there is one, else into a new
  /// message with a buffer of `capacity` bytes after `headroom`. `createdAt`: server time, ns.
  mutating func message(
    headroom: Int, capacity: Int, supersedable: Bool, createdAt: Int64, _ write: (inout JSONWriter) -> Void
  ) -> OutgoingMessage {
    if let m = free.popLast() {
      m.rewrite(headroom: headroom, supersedable: supersedable, createdAt: createdAt, write)
      return m
    }
    return OutgoingMessage(
      headroom: headroom, capacity: capacity, supersedable: supersedable, createdAt: createdAt, write)
  }
}

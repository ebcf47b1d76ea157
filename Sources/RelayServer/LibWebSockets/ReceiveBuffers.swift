import CLibWebSockets
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Where lws' per-connection receive buffers live: lws allocates one of `rx_buffer_size` for
/// every WebSocket as it opens ("rx_ubuf") and writes to it only when a message comes in. From
/// the heap, each buffer's first page is written by malloc's own header and spreads the small
/// allocations of every connection over pages of their own, so an idle connection costs about
/// a page whatever the buffer's size (PERFORMANCE.md, "Every connection cheap"). Here each
/// buffer is a slot of one large mapping reserved without backing (`MAP_NORESERVE`): a page is
/// resident only once a message was written there, an observer that never sends costs nothing
/// for its buffer, and the heap stays dense. A slot given back is emptied (`MADV_DONTNEED`), so
/// what a closed connection received leaves memory with it.
///
/// lws routes every allocation through one process-wide hook (`lws_set_allocator`); all but
/// the receive buffers go on to the C library's `realloc` untouched.
enum ReceiveBuffers {
  /// The bytes lws asks for per buffer: the protocol's `rx_buffer_size`, lws' `LWS_PRE`, and 4
  /// for zlib (lib/roles/ws/ops-ws.c, `lws_ws_rx_sm`'s caller).
  static func requestSize(rxBufferSize: Int) -> Int { rxBufferSize + Int(tr_lws_pre()) + 4 }

  /// The most slots reserved: 4 GiB of addresses at 16 KiB each, whatever the limit.
  static let mostSlots = 262_144

  /// Installs the hook with room for `slots` buffers of `bytes` each, once per process (the
  /// first caller's sizes hold); before any lws context exists. Without the mapping (a system
  /// that refuses to reserve it) lws keeps the heap.
  static func install(slots: Int, bytes: Int) {
    state.withLock { pool in
      guard pool == nil else { return }
      let page = Int(getpagesize())
      let slotBytes = (bytes + page - 1) / page * page
      let count = max(1, slots)
      let base = mmap(
        nil, count * slotBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
      guard let base, base != MAP_FAILED else { return }
      pool = Pool(base: UInt(bitPattern: base), slotBytes: slotBytes, slots: count)
      mapped.store(UInt(bitPattern: base), ordering: .releasing)
      mappedEnd.store(UInt(bitPattern: base) + UInt(count * slotBytes), ordering: .releasing)
      mappedSlotBytes.store(slotBytes, ordering: .releasing)
      lws_set_allocator(receiveBufferAllocator)
    }
  }

  /// The slots of one mapping: which are handed out, which are free again.
  struct Pool: Sendable {
    let base: UInt
    let slotBytes: Int
    let slots: Int
    /// Slots ever handed out: those below are in use or in `free`.
    private(set) var used = 0
    private(set) var free: [Int32] = []

    init(base: UInt, slotBytes: Int, slots: Int) {
      self.base = base
      self.slotBytes = slotBytes
      self.slots = slots
    }

    func contains(_ address: UInt) -> Bool { address >= base && address < base + UInt(slots * slotBytes) }

    /// A slot's address (the most recently freed first), or nil when none is left or `size`
    /// does not fit one.
    mutating func take(_ size: Int) -> UInt? {
      guard size <= slotBytes else { return nil }
      let index: Int
      if let reused = free.popLast() {
        index = Int(reused)
      } else {
        guard used < slots else { return nil }
        index = used
        used += 1
      }
      return base + UInt(index * slotBytes)
    }

    /// Takes back the slot `address` is in, emptied; false if it is no slot of this pool.
    mutating func give(_ address: UInt) -> Bool {
      guard contains(address) else { return false }
      let index = Int((address - base) / UInt(slotBytes))
      _ = madvise(UnsafeMutableRawPointer(bitPattern: base + UInt(index * slotBytes)), slotBytes, MADV_DONTNEED)
      free.append(Int32(index))
      return true
    }
  }

  static let state = PthreadMutex<Pool?>(nil)
  /// The mapping's bounds and slot size, set once, so that telling a slot from the heap's
  /// memory (every free lws makes) takes no lock.
  private static let mapped = Atomic<UInt>(0)
  private static let mappedEnd = Atomic<UInt>(0)
  private static let mappedSlotBytes = Atomic<Int>(0)

  static func take(_ size: Int) -> UnsafeMutableRawPointer? {
    state.withLock { pool in pool?.take(size).flatMap { UnsafeMutableRawPointer(bitPattern: $0) } }
  }

  static func give(_ address: UInt) -> Bool {
    state.withLock { pool in pool?.give(address) ?? false }
  }

  /// The slot's bytes if `address` is a slot's; nil if the heap's.
  static func slotBytes(at address: UInt) -> Int? {
    guard address >= mapped.load(ordering: .acquiring), address < mappedEnd.load(ordering: .acquiring) else {
      return nil
    }
    return mappedSlotBytes.load(ordering: .acquiring)
  }
}

/// Whether lws' `reason` is "rx_ubuf", a WebSocket's receive buffer.
private func isReceiveBuffer(_ reason: UnsafePointer<CChar>?) -> Bool {
  guard let r = reason else { return false }
  return r[0] == 0x72 && r[1] == 0x78 && r[2] == 0x5F && r[3] == 0x75 && r[4] == 0x62 && r[5] == 0x75
    && r[6] == 0x66 && r[7] == 0
}

/// lws' allocator (`lws_set_allocator`): `realloc`'s contract, a size of 0 meaning free.
private let receiveBufferAllocator:
  @convention(c) (UnsafeMutableRawPointer?, Int, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer? = {
    ptr, size, reason in
    if let ptr, let slot = ReceiveBuffers.slotBytes(at: UInt(bitPattern: ptr)) {
      if size == 0 {
        _ = ReceiveBuffers.give(UInt(bitPattern: ptr))
        return nil
      }
      if size <= slot { return ptr }
      // Grown past a slot (lws does not grow its buffers, but the contract allows it).
      guard let moved = malloc(size) else { return nil }
      memcpy(moved, ptr, slot)
      _ = ReceiveBuffers.give(UInt(bitPattern: ptr))
      return moved
    }
    if size == 0 {
      free(ptr)
      return nil
    }
    if ptr == nil, isReceiveBuffer(reason), let slot = ReceiveBuffers.take(size) { return slot }
    return realloc(ptr, size)
  }

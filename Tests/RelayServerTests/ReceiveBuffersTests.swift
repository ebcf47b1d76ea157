import Testing

@testable import RelayServer

#if canImport(Glibc)
  import Glibc
#endif

/// The slots lws' receive buffers live in (`ReceiveBuffers`): what an idle connection costs
/// is in the bench (`tools/bench/rss_breakdown.py --observers`); here, that slots are handed
/// out apart, reused, emptied when given back, and never past the mapping.
@Suite struct ReceiveBuffersTests {
  @Test func slotsAreApartReusedEmptiedAndBounded() throws {
    let page = Int(getpagesize())
    let bytes = 4 * page
    let base = try #require(
      mmap(nil, 3 * bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0))
    #expect(base != MAP_FAILED)
    defer { munmap(base, 3 * bytes) }
    var pool = ReceiveBuffers.Pool(base: UInt(bitPattern: base), slotBytes: bytes, slots: 3)
    // Too big for a slot: the heap's.
    let tooBig = pool.take(bytes + 1)
    #expect(tooBig == nil)
    let taken = [pool.take(bytes), pool.take(100), pool.take(bytes)].compactMap { $0 }
    #expect(taken.count == 3)
    #expect(Set(taken).count == 3)
    #expect(taken.allSatisfy { ($0 - UInt(bitPattern: base)) % UInt(bytes) == 0 })
    // Full.
    let past = pool.take(1)
    #expect(past == nil)
    // What a connection received leaves with it, and its slot is the next one out.
    let b = taken[1]
    UnsafeMutableRawPointer(bitPattern: b)!.storeBytes(of: 0xAB, toByteOffset: page + 7, as: UInt8.self)
    let given = pool.give(b)
    #expect(given)
    let outside = pool.give(UInt(bitPattern: base) + UInt(3 * bytes))
    #expect(!outside, "an address past the mapping is the heap's")
    let again = pool.take(bytes)
    #expect(again == b)
    #expect(UnsafeMutableRawPointer(bitPattern: b)!.load(fromByteOffset: page + 7, as: UInt8.self) == 0)
  }
}

import Testing

@testable import RelayCore

@Suite struct ObserverQueueTests {
  func message(_ tag: UInt8, supersedable: Bool) -> OutgoingMessage {
    OutgoingMessage([tag], headroom: 0, supersedable: supersedable, at: 0)
  }

  func drain(_ q: inout ObserverQueue) -> [UInt8] {
    var out: [UInt8] = []
    while let m = q.pop() { out.append(m.bytes[0]) }
    return out
  }

  @Test func keepsOrderWhileThereIsRoom() {
    var q = ObserverQueue(capacity: 4, hardLimit: 8)
    for i in 0..<4 { #expect(q.push(message(UInt8(i), supersedable: i % 2 == 0)) == .queued) }
    #expect(drain(&q) == [0, 1, 2, 3])
    #expect(q.takeDropped() == 0)
  }

  @Test func dropsTheOldestSupersedableFirstAndCountsIt() {
    var q = ObserverQueue(capacity: 3, hardLimit: 6)
    _ = q.push(message(1, supersedable: false))
    _ = q.push(message(2, supersedable: true))
    _ = q.push(message(3, supersedable: true))
    #expect(q.push(message(4, supersedable: false)) == .queuedWithDrops)
    #expect(q.push(message(5, supersedable: true)) == .queuedWithDrops)
    #expect(drain(&q) == [1, 4, 5])
    #expect(q.takeDropped() == 2)
    #expect(q.takeDropped() == 0)
    #expect(q.totalDropped == 2)
  }

  @Test func essentialMessagesAreNeverDroppedOnlyOverflowAtTheHardLimit() {
    var q = ObserverQueue(capacity: 2, hardLimit: 4)
    for i in 0..<4 { #expect(q.push(message(UInt8(i), supersedable: false)) != .overflow) }
    // A supersedable newcomer is the one that goes when nothing older may.
    #expect(q.push(message(9, supersedable: true)) == .queuedWithDrops)
    #expect(q.push(message(5, supersedable: false)) == .overflow)
    #expect(drain(&q) == [0, 1, 2, 3])
    #expect(q.takeDropped() == 1)
  }

  @Test func aQueueNobodyPopsHoldsBoundedMemory() {
    // A stalled observer: 100,000 messages in, none out; one in 50 essential.
    var q = ObserverQueue(capacity: 4, hardLimit: 64)
    var essentials: [UInt8] = []
    var mostHeld = 0
    for i in 0..<100_000 {
      let essential = i % 50 == 0 && essentials.count < 60
      if essential { essentials.append(UInt8(truncatingIfNeeded: i / 50)) }
      let tag = essential ? UInt8(truncatingIfNeeded: i / 50) : 255
      #expect(q.push(message(tag, supersedable: !essential)) != .overflow)
      mostHeld = max(mostHeld, q.heldSlots)
    }
    #expect(mostHeld <= 2 * 64 + 1, "\(mostHeld) slots held")
    // The essentials in order, then the newest supersedable ones up to the capacity (none:
    // the essentials alone fill it).
    #expect(drain(&q) == essentials)
    #expect(q.takeDropped() == 100_000 - essentials.count)
  }

  @Test func survivesLongRunsWithCompaction() {
    // Each message carries its own number (no two alike), so a supersedable message can never
    // stand in for a lost essential one.
    var q = ObserverQueue(capacity: 8, hardLimit: 16)
    var essentials: [Int] = []
    var got: [Int] = []
    var dropped = 0
    let total = 10_000
    for i in 0..<total {
      let essential = i % 7 == 0
      #expect(q.push(numbered(i, supersedable: !essential)) != .overflow)
      if essential { essentials.append(i) }
      if i % 3 == 0, let m = q.pop() { got.append(number(m)) }
      dropped += q.takeDropped()
    }
    while let m = q.pop() { got.append(number(m)) }
    // Every essential message arrives, in order; whatever arrives keeps its order; and every
    // message is either delivered or counted as dropped.
    #expect(got.filter { $0 % 7 == 0 } == essentials)
    #expect(got == got.sorted())
    #expect(got.count + dropped == total)
    #expect(q.isEmpty)
  }

  /// The queue against the rules written plainly (an array, searched): the same outcome for
  /// every push, the same message for every pop, the same drops, over random runs that keep
  /// the queue near empty (where a lone message bypasses the arrays) and near full.
  @Test(arguments: [(1, 1), (1, 3), (2, 2), (3, 8)])
  func matchesThePlainRules(capacity: Int, hardLimit: Int) {
    var q = ObserverQueue(capacity: capacity, hardLimit: hardLimit)
    var plain: [(n: Int, supersedable: Bool)] = []
    var plainDropped = 0
    for i in 0..<20_000 {
      // A fixed, scrambled sequence (Fibonacci hashing of i): the same run every time.
      let bits = UInt64(i + capacity * 31 + hardLimit) &* 0x9E37_79B9_7F4A_7C15
      // Runs of pushes and pops, so the queue empties often and fills often.
      let pushing = (i / 7) % 2 == 0 ? bits >> 62 != 0 : bits >> 62 == 0
      if pushing {
        let supersedable = (bits >> 56) % 3 != 0
        var expected = ObserverQueue.Outcome.queued
        if plain.count >= capacity {
          if let k = plain.firstIndex(where: \.supersedable) {
            plain.remove(at: k)
            plainDropped += 1
            expected = .queuedWithDrops
          } else if supersedable {
            plainDropped += 1
            #expect(q.push(numbered(i, supersedable: true)) == .queuedWithDrops)
            continue
          } else if plain.count >= hardLimit {
            #expect(q.push(numbered(i, supersedable: false)) == .overflow)
            continue
          }
        }
        plain.append((i, supersedable))
        #expect(q.push(numbered(i, supersedable: supersedable)) == expected)
      } else {
        #expect(q.pop().map(number) == (plain.isEmpty ? nil : plain.removeFirst().n))
      }
      #expect(q.count == plain.count)
    }
    #expect(q.totalDropped == plainDropped)
  }

  func numbered(_ i: Int, supersedable: Bool) -> OutgoingMessage {
    OutgoingMessage(withUnsafeBytes(of: i.littleEndian) { Array($0) }, headroom: 0, supersedable: supersedable, at: 0)
  }

  func number(_ m: OutgoingMessage) -> Int {
    Int(littleEndian: m.withPayload { $0.loadUnaligned(as: Int.self) })
  }
}


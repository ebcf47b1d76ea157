import Testing

@testable import RelayCore

/// `/metrics`' `touchrelay_dropped_messages_total` is what an operator's alert on observers
/// losing messages reads (docs/ops): it must rise when a message is dropped, while the
/// observer is still not reading, not only once it reads again and is told.
@Suite struct DropCountTests {
  @Test func dropsAreCountedWhenTheyHappenAndOnceEach() throws {
    let h = CoreHarness { $0.limits.observerQueue = 4 }
    let (stalled, _) = try h.observerOnClock("s", at: 0)
    let (source, _) = try h.sourceOnClock("s", at: 1)
    for seq in 1...20 {
      let phase = seq == 1 ? "began" : "moved"
      h.sendOnClock(h.frame(seq, t: Double(seq), [(1, phase, Double(seq), 10)]), from: source, at: 1 + Double(seq))
    }
    // Nothing read yet, and the drops are already counted.
    let counted = h.core.counters.droppedForObservers
    #expect(counted > 0)
    let got = h.take(stalled)
    let notice = try #require(got.first { $0.type == "dropped" })
    #expect(notice["count"]?.number == Double(counted))
    // Telling the observer counts nothing twice.
    #expect(h.core.counters.droppedForObservers == counted)
    h.finish()
  }
}

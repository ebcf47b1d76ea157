import Testing

@testable import RelayCore

/// `/metrics` counts closes by code (`touchrelay_closes_total{code}`): a peer may close with
/// any code from 3000 to 4999, and each one its own series would let one client make
/// thousands of them on every node.
@Suite struct CloseCountTests {
  @Test func aPeersOwnCloseCodeIsCountedAsOtherAndKnownOnesAsThemselves() throws {
    let h = CoreHarness()
    for (i, code) in [UInt16(4321), 3999, 1000, 1001, 4001].enumerated() {
      let (observer, _) = try h.observerOnClock("s", address: "10.0.0.\(i + 1)", at: Double(i))
      h.closeOnClock(observer, code: code, at: Double(i) + 0.5)
    }
    let (dropped, _) = try h.observerOnClock("s", at: 10)
    h.dropOnClock(dropped, at: 11)
    #expect(h.core.counters.closes == ["other": 2, "1000": 1, "1001": 1, "4001": 1, "none": 1])
    h.finish()
  }
}

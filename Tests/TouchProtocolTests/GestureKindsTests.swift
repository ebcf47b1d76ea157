import Testing
import TouchProtocol

/// `GestureKinds`, the bit set behind `hello.config.recognizers` and `?gestures=`: each kind is
/// its own member, and a set holds exactly what was put in.
@Suite struct GestureKindsTests {
  @Test func eachKindIsOnlyItself() {
    for kind in GestureKind.allCases {
      let one: GestureKinds = [kind]
      for other in GestureKind.allCases {
        #expect(one.contains(other) == (other == kind), "\(kind) against \(other)")
      }
    }
  }

  @Test func everySubsetHoldsWhatWasPutIn() {
    let kinds = GestureKind.allCases
    for mask in 0..<(1 << kinds.count) {
      let chosen = kinds.indices.filter { mask & (1 << $0) != 0 }.map { kinds[$0] }
      let set = GestureKinds(chosen)
      #expect(kinds.filter(set.contains) == chosen)
      #expect(set == GestureKinds(chosen.reversed()))
    }
    #expect(GestureKinds() == [])
    #expect(GestureKinds.all == GestureKinds(kinds))
  }
}

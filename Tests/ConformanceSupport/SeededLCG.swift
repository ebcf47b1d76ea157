/// The tests' reproducible random inputs: a 64-bit linear congruential generator (Knuth's
/// MMIX constants). Each test seeds `state` its own way, so a failing seed reproduces. Shared by
/// the engine's and the server's tests.
public struct SeededLCG {
  public var state: UInt64

  public init(state: UInt64) { self.state = state }

  private mutating func step() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state
  }

  /// Uniform in 0..<1, from the top 53 bits.
  public mutating func unit() -> Double { Double(step() >> 11) / Double(1 << 53) }

  /// Uniform-ish in 0..<n, from the top 31 bits.
  public mutating func below(_ n: Int) -> Int { Int((step() >> 33) % UInt64(n)) }
}

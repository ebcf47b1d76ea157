import NIOWebSocket

/// Masking keys for client frames. RFC 6455 wants them unpredictable to proxies, not
/// secret: an xorshift step per frame, seeded from the system generator, instead of a
/// getrandom(2) call per frame. Not thread-safe: each owner keeps its own.
public struct MaskGenerator: Sendable {
  private var seed: UInt64

  public init() {
    seed = UInt64.random(in: 1...UInt64.max)
  }

  public mutating func next() -> WebSocketMaskingKey {
    seed ^= seed << 13
    seed ^= seed >> 7
    seed ^= seed << 17
    // Its four bytes straight from the integer's storage: an array literal here was a heap
    // allocation per frame sent.
    return withUnsafeBytes(of: UInt32(truncatingIfNeeded: seed >> 16)) { WebSocketMaskingKey($0)! }
  }
}

/// Checks that bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF) as they arrive, a chunk at a time: a sequence may be split between two
/// chunks, as between two fragments of one WebSocket message. RFC 6455 §8.1 asks the server to
/// fail the connection (1007) on a text message or close reason that is not.
public struct UTF8Validator: Sendable {
  /// Continuation bytes still owed by the sequence under way, and the range the next one must
  /// fall in (narrower than 80–BF right after E0, ED, F0 and F4).
  private var needed: UInt8 = 0
  private var lower: UInt8 = 0x80
  private var upper: UInt8 = 0xBF

  public init() {}

  /// Reads `bytes` on from where the last call stopped; false at the first byte that cannot
  /// be UTF-8 there (the validator is then of no further use).
  public mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let n = bytes.count
    var i = 0
    while i < n {
      if needed == 0 {
        // Protocol text is nearly all ASCII: 32 bytes per test, then eight.
        while i &+ 32 <= n {
          let any =
            base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            | base.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self)
            | base.loadUnaligned(fromByteOffset: i &+ 16, as: UInt64.self)
            | base.loadUnaligned(fromByteOffset: i &+ 24, as: UInt64.self)
          guard any & 0x8080_8080_8080_8080 == 0 else { break }
          i &+= 32
        }
        while i + 8 <= n, base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
          i += 8
        }
        guard i < n else { return true }
        // The last few bytes as one test too, in the 8 that end the chunk (any before them
        // were read already; if all 8 are ASCII, so is the tail).
        if n - i < 8, n >= 8,
          base.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
        {
          return true
        }
        let b = base.load(fromByteOffset: i, as: UInt8.self)
        i += 1
        if b < 0x80 { continue }
        switch b {
        case 0xC2...0xDF: expect(1, 0x80, 0xBF)
        case 0xE0: expect(2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
        case 0xED: expect(2, 0x80, 0x9F)
        case 0xF0: expect(3, 0x90, 0xBF)
        case 0xF1...0xF3: expect(3, 0x80, 0xBF)
        case 0xF4: expect(3, 0x80, 0x8F)
        default: return false
        }
      } else {
        let b = base.load(fromByteOffset: i, as: UInt8.self)
        i += 1
        guard b >= lower, b <= upper else { return false }
        needed -= 1
        lower = 0x80
        upper = 0xBF
      }
    }
    return true
  }

  /// No sequence is left half-way: the text may end here.
  public var isComplete: Bool { needed == 0 }

  private mutating func expect(_ count: UInt8, _ low: UInt8, _ high: UInt8) {
    needed = count
    lower = low
    upper = high
  }

  /// Whether `bytes` alone are well-formed UTF-8.
  public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var v = UTF8Validator()
    return v.consume(bytes) && v.isComplete
  }
}

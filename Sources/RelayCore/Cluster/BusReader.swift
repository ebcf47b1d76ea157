import TouchProtocol

/// Reads the bus's binary encoding from borrowed bytes, checking every length against what is
/// left: whatever the bytes are, it throws or returns values within them.
struct BusReader {
  let bytes: UnsafeRawBufferPointer
  private(set) var index = 0

  init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  var remaining: Int { bytes.count - index }
  var atEnd: Bool { index == bytes.count }

  mutating func u8() throws(BusFormatError) -> UInt8 {
    guard remaining >= 1 else { throw .truncated }
    defer { index += 1 }
    return bytes[index]
  }

  /// A little-endian integer.
  mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(BusFormatError) -> T {
    let n = MemoryLayout<T>.size
    guard remaining >= n else { throw .truncated }
    var v: T = 0
    withUnsafeMutableBytes(of: &v) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[index..<index + n])) }
    index += n
    return T(littleEndian: v)
  }

  mutating func u32() throws(BusFormatError) -> UInt32 { try integer(UInt32.self) }

  mutating func u64() throws(BusFormatError) -> UInt64 { try integer(UInt64.self) }

  mutating func i64() throws(BusFormatError) -> Int64 { Int64(bitPattern: try u64()) }

  /// A finite double: the protocol's bound for a device's `t` (any origin, any finite value)
  /// and for positions.
  mutating func f64() throws(BusFormatError) -> Double {
    let v = Double(bitPattern: try u64())
    guard v.isFinite else { throw .outOfRange }
    return v
  }

  /// Server times a record may carry (ms), 0 for none. A node's `rt` is milliseconds since the
  /// Unix epoch (protocol/README.md, section 7), and the core keeps it as Int64 nanoseconds
  /// (`OutgoingMessage.createdAt`): the bound is half of Int64's range in nanoseconds, so a
  /// time and the difference of two fit with room. That is the year 2116, far beyond any
  /// node's clock; a time above it (the fuzzer's 2.4e24) trapped in the conversion.
  static let serverTimeRange: ClosedRange<Double> = 0...Double(Int64.max / 2) / 1_000_000

  mutating func serverTime() throws(BusFormatError) -> Double {
    let v = try f64()
    guard Self.serverTimeRange.contains(v) else { throw .outOfRange }
    return v
  }

  /// Largest count or sequence number a record may carry: 2^53 − 1, the protocol's bound for
  /// `seq` (what the decoder accepts from a source) and the largest whole number a JSON reader
  /// holds exactly, which a gap's `dropped` count is written for. A node numbering a million
  /// records a second would take centuries to reach it; within it, the core's arithmetic on
  /// the numbers (the next one expected, a gap's size as Int, counts summed) cannot overflow
  /// per record.
  static let maxCounter: UInt64 = 1 << 53 - 1

  /// A count or sequence number, at most `maxCounter`.
  mutating func counter() throws(BusFormatError) -> UInt64 {
    let v = try u64()
    guard v <= Self.maxCounter else { throw .outOfRange }
    return v
  }

  /// A name: 1 to `maxLength` bytes of `[A-Za-z0-9._-]` (empty if `allowEmpty`).
  mutating func name(maxLength: Int = 64, allowEmpty: Bool = false) throws(BusFormatError) -> String {
    let n = Int(try u8())
    guard n <= maxLength, n > 0 || allowEmpty else { throw .badName }
    guard remaining >= n else { throw .truncated }
    let slice = UnsafeRawBufferPointer(rebasing: bytes[index..<index + n])
    for c in slice where !Self.isNameByte(c) { throw .badName }
    index += n
    return String(decoding: slice, as: UTF8.self)
  }

  /// A payload's place in `bytes`: at most `maxLength` bytes.
  mutating func payload(maxLength: Int) throws(BusFormatError) -> Range<Int> {
    let n = Int(try u32())
    guard n <= maxLength else { throw .tooLarge }
    guard remaining >= n else { throw .truncated }
    defer { index += n }
    return index..<index + n
  }

  mutating func expect(_ literal: StaticString) throws(BusFormatError) {
    let n = literal.utf8CodeUnitCount
    guard remaining >= n else { throw .badMagic }
    for k in 0..<n where bytes[index + k] != literal.utf8Start[k] { throw .badMagic }
    index += n
  }

  static func isNameByte(_ c: UInt8) -> Bool {
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
      || c == 0x2E
  }
}

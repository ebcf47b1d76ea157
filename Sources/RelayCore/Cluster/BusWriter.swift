/// Appends the bus's binary encoding (little-endian integers, IEEE doubles, short names with a
/// length byte, payloads with a 32-bit length) to a growing buffer.
struct BusWriter {
  private(set) var bytes: [UInt8] = []

  var count: Int { bytes.count }
  var isEmpty: Bool { bytes.isEmpty }

  mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

  mutating func u8(_ v: UInt8) { bytes.append(v) }

  mutating func u32(_ v: UInt32) {
    withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func u64(_ v: UInt64) {
    withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }

  mutating func f64(_ v: Double) { u64(v.bitPattern) }

  /// A name of at most 255 bytes (callers keep theirs far shorter).
  mutating func name(_ s: String) {
    let utf8 = s.utf8
    bytes.append(UInt8(min(utf8.count, 255)))
    bytes.append(contentsOf: utf8.prefix(255))
  }

  mutating func payload(_ p: UnsafeRawBufferPointer) {
    u32(UInt32(p.count))
    bytes.append(contentsOf: p)
  }

  mutating func payload(_ p: [UInt8]) { p.withUnsafeBytes { payload($0) } }

  /// Overwrites 4 bytes at `offset` (a count known only at the end).
  mutating func patchU32(_ v: UInt32, at offset: Int) {
    withUnsafeBytes(of: v.littleEndian) { raw in
      for k in 0..<4 { bytes[offset + k] = raw[k] }
    }
  }
}

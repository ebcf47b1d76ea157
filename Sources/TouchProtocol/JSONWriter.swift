/// Appends JSON to a byte buffer. Outgoing messages are built with it directly, so the hot
/// path (raw `touches`, `gesture`) needs neither Foundation nor intermediate strings.
public struct JSONWriter {
  public private(set) var bytes: [UInt8]
  /// Whether the next member of each open object or array needs a comma: a bit per level for
  /// the first 64 (no allocation, no uniqueness checks on the hot path), an array beyond.
  private var depth = 0
  private var commaBits: UInt64 = 0
  private var deepCommas: [Bool] = []

  /// `headroom` zero bytes are reserved in front of the JSON (libwebsockets' LWS_PRE).
  public init(headroom: Int = 0, capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(headroom + capacity)
    bytes.append(contentsOf: repeatElement(0, count: headroom))
  }

  private mutating func separate() {
    guard depth > 0 else { return }
    if needsComma { bytes.append(UInt8(ascii: ",")) }
    needsComma = true
  }

  /// The flag of the innermost open level.
  private var needsComma: Bool {
    get { depth <= 64 ? commaBits & (1 << (depth - 1)) != 0 : deepCommas[depth - 65] }
    set {
      if depth <= 64 {
        if newValue { commaBits |= 1 << (depth - 1) } else { commaBits &= ~(1 << (depth - 1)) }
      } else {
        deepCommas[depth - 65] = newValue
      }
    }
  }

  private mutating func open() {
    depth += 1
    if depth > 64 { deepCommas.append(false) } else { needsComma = false }
  }

  private mutating func close() {
    if depth > 64 { deepCommas.removeLast() }
    depth -= 1
  }

  public mutating func beginObject() {
    separate()
    bytes.append(UInt8(ascii: "{"))
    open()
  }

  public mutating func endObject() {
    close()
    bytes.append(UInt8(ascii: "}"))
  }

  public mutating func beginArray() {
    separate()
    bytes.append(UInt8(ascii: "["))
    open()
  }

  public mutating func endArray() {
    close()
    bytes.append(UInt8(ascii: "]"))
  }

  /// A member name; the value written next belongs to it.
  public mutating func key(_ name: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    raw(name)
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
    needsComma = false
  }

  public mutating func key(_ name: String) {
    separate()
    writeString(name)
    bytes.append(UInt8(ascii: ":"))
    needsComma = false
  }

  public mutating func string(_ s: String) {
    separate()
    writeString(s)
  }

  public mutating func bool(_ b: Bool) {
    separate()
    raw(b ? "true" : "false")
  }

  public mutating func null() {
    separate()
    raw("null")
  }

  /// Appends a literal's bytes without building an intermediate array.
  private mutating func raw(_ literal: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  public mutating func int(_ v: Int64) {
    separate()
    writeInt(v)
  }

  /// Non-finite values cannot be JSON; they are written as null (the engine never makes them).
  public mutating func number(_ v: Double) {
    separate()
    guard v.isFinite else { return raw("null") }
    if v == v.rounded(), abs(v) < 1e15 {
      writeInt(Int64(v))
    } else {
      bytes.append(contentsOf: v.description.utf8)
    }
  }

  public mutating func value(_ v: JSONValue) {
    switch v {
    case .null: null()
    case .bool(let b): bool(b)
    case .number(let d): number(d)
    case .string(let s): string(s)
    case .array(let items):
      beginArray()
      for item in items { value(item) }
      endArray()
    case .object(let members):
      beginObject()
      for (k, item) in members {
        key(k)
        value(item)
      }
      endObject()
    }
  }

  private mutating func writeInt(_ v: Int64) {
    if v == 0 { return bytes.append(UInt8(ascii: "0")) }
    var magnitude = v.magnitude
    if v < 0 { bytes.append(UInt8(ascii: "-")) }
    var digits:
      (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
      ) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var n = 0
    withUnsafeMutableBytes(of: &digits) { d in
      while magnitude > 0 {
        d[n] = UInt8(magnitude % 10) + 0x30
        magnitude /= 10
        n += 1
      }
      for k in stride(from: n - 1, through: 0, by: -1) { bytes.append(d[k]) }
    }
  }

  private mutating func writeString(_ s: String) {
    bytes.append(UInt8(ascii: "\""))
    // Most strings (ids, names, states) need no escaping: copy their bytes in one go.
    let copied =
      s.utf8.withContiguousStorageIfAvailable { utf8 in
        guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
        bytes.append(contentsOf: utf8)
        return true
      } ?? false
    if copied {
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for c in s.utf8 {
      switch c {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
      case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
      case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
      case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 0xF)]])
      default: bytes.append(c)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}

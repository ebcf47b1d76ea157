/// Appends JSON to a byte buffer. Outgoing messages are built with it directly, so the hot
/// path (raw `touches`, `gesture`) needs neither Foundation nor intermediate strings.
///
/// The buffer is raw memory it owns (so the writer cannot be copied): appending a byte to an
/// `[UInt8]` checks uniqueness and capacity every time, and at a byte or two per call that
/// made a `gesture` message cost about 1.6 µs to encode, several times the engine's work.
public struct JSONWriter: ~Copyable {
  private var base: UnsafeMutablePointer<UInt8>
  private var count: Int
  private var capacity: Int
  /// Whether the next member of each open object or array needs a comma: a bit per level for
  /// the innermost 64 (no allocation on the hot path), an array for the levels beyond.
  private var depth = 0
  private var commaBits: UInt64 = 0
  private var deepCommas: [Bool] = []

  /// `headroom` zero bytes are reserved in front of the JSON (libwebsockets' LWS_PRE).
  public init(headroom: Int = 0, capacity: Int = 256) {
    self.capacity = max(headroom + capacity, 16)
    base = .allocate(capacity: self.capacity)
    base.initialize(repeating: 0, count: headroom)
    count = headroom
  }

  // A writer whose buffer was taken has capacity 0 and owns nothing.
  deinit { if capacity > 0 { base.deallocate() } }

  /// Hands the buffer over without copying it: everything written, headroom included. The
  /// caller deallocates it (`deallocate()`).
  public consuming func takeBuffer() -> UnsafeMutableRawBufferPointer {
    let taken = UnsafeMutableRawBufferPointer(start: base, count: count)
    capacity = 0
    return taken
  }

  /// Everything written, headroom included.
  public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

  /// Everything written, headroom included, without copying it into an array.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(start: base, count: count))
  }

  @inline(__always) private mutating func put(_ b: UInt8) {
    reserve(1)
    (base + count).initialize(to: b)
    count += 1
  }

  @inline(__always) private mutating func put(_ p: UnsafeBufferPointer<UInt8>) {
    guard let src = p.baseAddress, !p.isEmpty else { return }
    reserve(p.count)
    (base + count).initialize(from: src, count: p.count)
    count += p.count
  }

  /// Room for `n` more bytes, so a multi-byte write checks the capacity once.
  @inline(__always) private mutating func reserve(_ n: Int) {
    if count + n > capacity { grow(to: count + n) }
  }

  private mutating func grow(to needed: Int) {
    capacity = max(needed, capacity * 2)
    let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    grown.initialize(from: base, count: count)
    base.deallocate()
    base = grown
  }

  @inline(__always) private mutating func separate() {
    guard depth > 0 else { return }
    if commaBits & 1 != 0 { put(UInt8(ascii: ",")) }
    commaBits |= 1
  }

  /// After a member name: its value needs no comma.
  @inline(__always) private mutating func noComma() { commaBits &= ~1 }

  // Bit 0 is the innermost open level; a new level shifts the others up (the 64th and
  // deeper spill into `deepCommas`).
  @inline(__always) private mutating func open() {
    if depth >= 64 { deepCommas.append(commaBits >> 63 != 0) }
    commaBits <<= 1
    depth += 1
  }

  @inline(__always) private mutating func close() {
    depth -= 1
    commaBits >>= 1
    if depth >= 64, deepCommas.removeLast() { commaBits |= 1 << 63 }
  }

  public mutating func beginObject() {
    separate()
    put(UInt8(ascii: "{"))
    open()
  }

  public mutating func endObject() {
    close()
    put(UInt8(ascii: "}"))
  }

  public mutating func beginArray() {
    separate()
    put(UInt8(ascii: "["))
    open()
  }

  public mutating func endArray() {
    close()
    put(UInt8(ascii: "]"))
  }

  /// A member name; the value written next belongs to it.
  public mutating func key(_ name: StaticString) {
    separate()
    let n = name.utf8CodeUnitCount
    reserve(n + 3)
    let p = base + count
    p.initialize(to: UInt8(ascii: "\""))
    (p + 1).initialize(from: name.utf8Start, count: n)
    (p + 1 + n).initialize(to: UInt8(ascii: "\""))
    (p + 2 + n).initialize(to: UInt8(ascii: ":"))
    count += n + 3
    noComma()
  }

  /// A member name only known at run time, escaped as needed. Literal names take
  /// `key(_: StaticString)`, which copies their bytes without looking at them; with both
  /// unlabelled, Swift picked this one for literals.
  public mutating func key(escaping name: String) {
    separate()
    writeString(name)
    put(UInt8(ascii: ":"))
    noComma()
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
    put(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  public mutating func int(_ v: Int64) {
    separate()
    writeInt(v)
  }

  /// Numbers are written rounded to at most six decimals, trailing zeros dropped (protocol
  /// §2): a millionth of a point or a millisecond is far below anything a touch means, and
  /// the shortest exact form of a computed value (a velocity, a centroid) took ~55 ns and up
  /// to 17 digits. Magnitudes of 9e12 and more (never a touch value) keep Swift's exact form.
  /// Non-finite values cannot be JSON; they are written as null (the engine never makes them).
  public mutating func number(_ v: Double) {
    separate()
    guard v.isFinite else { return raw("null") }
    if v == v.rounded(), abs(v) < 1e15 { return writeInt(Int64(v)) }
    guard abs(v) < 9e12 else {
      var text = v.description
      return text.withUTF8 { put($0) }
    }
    let millionths = Int64((v * 1e6).rounded())
    if millionths < 0 { put(UInt8(ascii: "-")) }
    let magnitude = millionths.magnitude
    writeInt(Int64(magnitude / 1_000_000))
    var fraction = magnitude % 1_000_000
    guard fraction != 0 else { return }
    // Six digits less the trailing zeros.
    var digits = 6
    while fraction % 10 == 0 {
      fraction /= 10
      digits -= 1
    }
    put(UInt8(ascii: "."))
    writeDigits(fraction, count: digits)
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
        key(escaping: k)
        value(item)
      }
      endObject()
    }
  }

  private mutating func writeInt(_ v: Int64) {
    if v < 0 { put(UInt8(ascii: "-")) }
    // The digit count by comparisons, so the digits are divided out once (in `writeDigits`).
    // An Int64's magnitude is below 10^19, so `power` never overflows.
    let magnitude = v.magnitude
    var n = 1
    var power: UInt64 = 10
    while n < 19, magnitude >= power {
      n += 1
      power &*= 10
    }
    writeDigits(magnitude, count: n)
  }

  /// The last `n` decimal digits of `value` (zero-padded), written in place last digit first:
  /// one capacity check for the whole run, and divisions by the constant 10, which compile to
  /// multiplications.
  private mutating func writeDigits(_ value: UInt64, count n: Int) {
    reserve(n)
    var value = value
    for i in stride(from: count + n - 1, through: count, by: -1) {
      base[i] = UInt8(truncatingIfNeeded: value % 10) + 0x30
      value /= 10
    }
    count += n
  }

  private mutating func writeString(_ s: String) {
    put(UInt8(ascii: "\""))
    // Most strings (ids, names, states) need no escaping: copy their bytes in one go.
    let copied =
      s.utf8.withContiguousStorageIfAvailable { utf8 in
        guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
        put(utf8)
        return true
      } ?? false
    if copied {
      put(UInt8(ascii: "\""))
      return
    }
    for c in s.utf8 {
      switch c {
      case UInt8(ascii: "\""): raw("\\\"")
      case UInt8(ascii: "\\"): raw("\\\\")
      case 0x0A: raw("\\n")
      case 0x0D: raw("\\r")
      case 0x09: raw("\\t")
      case 0..<0x20:
        let hex: StaticString = "0123456789abcdef"
        raw("\\u00")
        put(hex.utf8Start[Int(c >> 4)])
        put(hex.utf8Start[Int(c & 0xF)])
      default: put(c)
      }
    }
    put(UInt8(ascii: "\""))
  }
}

/// Appends JSON to a byte buffer. Outgoing messages are built with it directly, so the hot
/// path (raw `touches`, `gesture`) needs neither Foundation nor intermediate strings.
///
/// The buffer is raw memory it owns (so the writer cannot be copied): appending a byte to an
/// `[UInt8]` checks uniqueness and capacity every time, and at a byte or two per call that
/// made encoding a `gesture` message cost several times the engine's work.
public struct JSONWriter: ~Copyable {
  private var base: UnsafeMutablePointer<UInt8>
  private var count: Int
  private var capacity: Int
  /// Whether the next member of each open object or array needs a comma: a bit per level for
  /// the innermost 64 (no allocation on the hot path), a flag per level beyond in raw memory
  /// allocated at the 65th (index `depth - 64`). Raw, not an array: a writer then holds no
  /// reference, and ending one (every message) destroys nothing but its buffer.
  private var depth = 0
  private var commaBits: UInt64 = 0
  private var deepCommas: UnsafeMutablePointer<Bool>?
  private var deepCapacity = 0

  /// `headroom` zero bytes are reserved in front of the JSON (libwebsockets' LWS_PRE).
  public init(headroom: Int = 0, capacity: Int = 256) {
    self.capacity = max(headroom + capacity, 16)
    base = .allocate(capacity: self.capacity)
    base.initialize(repeating: 0, count: headroom)
    count = headroom
  }

  /// A writer over `storage` (`capacity` bytes, allocated as `UnsafeMutableRawPointer` or by
  /// another writer), which it owns from now on: what an earlier message's buffer is reused
  /// as, so a message costs no allocation.
  public init(reusing storage: UnsafeMutableRawPointer, capacity: Int, headroom: Int = 0) {
    base = storage.bindMemory(to: UInt8.self, capacity: capacity)
    self.capacity = capacity
    count = 0
    reserve(headroom)
    base.initialize(repeating: 0, count: headroom)
    count = headroom
  }

  // A writer whose buffer was taken has capacity 0 and owns nothing.
  deinit {
    if capacity > 0 { base.deallocate() }
    deepCommas?.deallocate()
  }

  /// Hands the buffer over without copying it: everything written, headroom included. The
  /// caller deallocates it (`deallocate()`).
  public consuming func takeBuffer() -> UnsafeMutableRawBufferPointer {
    takeStorage().written
  }

  /// Hands the buffer over without copying it: what was written (headroom included) and the
  /// whole buffer's size, for a later `init(reusing:capacity:headroom:)`. The caller
  /// deallocates it (`deallocate()` on `written`).
  public consuming func takeStorage() -> (written: UnsafeMutableRawBufferPointer, capacity: Int) {
    let taken = (UnsafeMutableRawBufferPointer(start: base, count: count), capacity)
    capacity = 0
    return taken
  }

  /// How many bytes are written, headroom included: where the next one goes.
  public var writtenCount: Int { count }

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
    Self.copy(src, to: base + count, p.count)
    count += p.count
  }

  /// Copies `n` bytes with at most two overlapping loads and stores instead of a call to
  /// `memcpy`: JSON is made of short runs (names, ids, states), and for those the call and its
  /// size dispatch cost more than the copy (a `gesture` message has some 30 of them).
  @inline(__always) fileprivate static func copy(
    _ src: UnsafePointer<UInt8>, to dst: UnsafeMutablePointer<UInt8>, _ n: Int
  ) {
    let s = UnsafeRawPointer(src)
    let d = UnsafeMutableRawPointer(dst)
    if n > 16 {
      d.copyMemory(from: s, byteCount: n)
    } else if n >= 8 {
      d.storeBytes(of: s.loadUnaligned(as: UInt64.self), as: UInt64.self)
      (d + n - 8).storeBytes(of: (s + n - 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
    } else if n >= 4 {
      d.storeBytes(of: s.loadUnaligned(as: UInt32.self), as: UInt32.self)
      (d + n - 4).storeBytes(of: (s + n - 4).loadUnaligned(as: UInt32.self), as: UInt32.self)
    } else {
      for i in 0..<n { dst[i] = src[i] }
    }
  }

  /// `"`, `n` bytes that need no escaping, `"` (and `:` after a member name), after one
  /// capacity check.
  @inline(__always) private mutating func putQuoted(
    _ src: UnsafePointer<UInt8>?, count n: Int, colon: Bool = false
  ) {
    let total = n + (colon ? 3 : 2)
    reserve(total)
    let p = base + count
    p.initialize(to: UInt8(ascii: "\""))
    if let src { Self.copy(src, to: p + 1, n) }
    (p + 1 + n).initialize(to: UInt8(ascii: "\""))
    if colon { (p + 2 + n).initialize(to: UInt8(ascii: ":")) }
    count += total
  }

  /// Room for `n` more bytes, so a multi-byte write checks the capacity once.
  @inline(__always) private mutating func reserve(_ n: Int) {
    if count + n > capacity { grow(to: count + n) }
  }

  // Out of line: inlined, its call to the allocator sat in every bracket, name and value.
  @inline(never) private mutating func grow(to needed: Int) {
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
    if depth >= 64 { spill() }
    commaBits <<= 1
    depth += 1
  }

  @inline(__always) private mutating func close() {
    depth -= 1
    commaBits >>= 1
    if depth >= 64 { unspill() }
  }

  // The levels past 64, out of line: no message the server writes goes that deep.
  @inline(never) private mutating func spill() {
    let level = depth - 64
    if level == deepCapacity {
      let grownCapacity = max(64, 2 * deepCapacity)
      let grown = UnsafeMutablePointer<Bool>.allocate(capacity: grownCapacity)
      if let old = deepCommas {
        grown.moveInitialize(from: old, count: deepCapacity)
        old.deallocate()
      }
      deepCommas = grown
      deepCapacity = grownCapacity
    }
    (deepCommas! + level).initialize(to: commaBits >> 63 != 0)
  }

  @inline(never) private mutating func unspill() { if deepCommas![depth - 64] { commaBits |= 1 << 63 } }

  // Brackets and names are inlined: a `gesture` message has 20 to 30 of each, and the call
  // cost about what the work did. `number`, `int` and `string` are not: inlined too, their
  // larger bodies made the server no faster (ARCHITECTURE.md, "Instructions counted").
  @inline(__always) public mutating func beginObject() {
    separate()
    put(UInt8(ascii: "{"))
    open()
  }

  @inline(__always) public mutating func endObject() {
    close()
    put(UInt8(ascii: "}"))
  }

  @inline(__always) public mutating func beginArray() {
    separate()
    put(UInt8(ascii: "["))
    open()
  }

  @inline(__always) public mutating func endArray() {
    close()
    put(UInt8(ascii: "]"))
  }

  /// A member name; the value written next belongs to it.
  @inline(__always) public mutating func key(_ name: StaticString) {
    separate()
    putQuoted(name.utf8Start, count: name.utf8CodeUnitCount, colon: true)
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

  /// A string known when the program is built (a message type, a phase): its bytes copied as
  /// they are, unexamined, so it must need no escaping.
  @inline(__always) public mutating func string(literal s: StaticString) {
    separate()
    putQuoted(s.utf8Start, count: s.utf8CodeUnitCount)
  }

  public mutating func string(_ s: String) {
    separate()
    writeString(s)
  }

  /// A value that is JSON already (checked by whoever made it), copied as it is.
  public mutating func json(_ value: UnsafeRawBufferPointer) {
    separate()
    put(value.bindMemory(to: UInt8.self))
  }

  /// Members of the open object that are JSON already (`"a":1,"b":2`, checked by whoever
  /// made them), copied as they are; the next member follows them with a comma.
  public mutating func members(_ text: UnsafeRawBufferPointer) {
    separate()
    put(text.bindMemory(to: UInt8.self))
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

  /// Writes through a cursor into `maxBytes` reserved at once: members of the open object
  /// whose names the caller knows, each with its comma (`,"x":`), for the fixed shape of a
  /// message, with no capacity check or comma bookkeeping per token. They must follow a member
  /// of that object, so the writer's state stays what it was: after a member. `maxBytes` must
  /// bound what `body` writes (`JSONCursor`'s limits per value).
  @inline(__always) public mutating func members(reserving maxBytes: Int, _ body: (inout JSONCursor) -> Void) {
    assert(depth > 0 && commaBits & 1 != 0, "members(reserving:) follows a member of an open object")
    reserve(maxBytes)
    var cursor = JSONCursor(base + count)
    body(&cursor)
    let written = cursor.position - (base + count)
    precondition(written <= maxBytes, "members(reserving:) wrote past its reservation")
    count += written
  }

  /// Numbers are written rounded to at most six decimals, trailing zeros dropped (protocol
  /// §2): a millionth of a point or a millisecond is far below anything a touch means, and
  /// the shortest exact form of a computed value (a velocity, a centroid) is slow to find and
  /// up to 17 digits long. Magnitudes of 9e12 and more (never a touch value) keep Swift's exact form.
  /// Non-finite values cannot be JSON; they are written as null (the engine never makes them).
  /// `"name":v` when there is a `v`, nothing otherwise: an optional member.
  @inline(__always) public mutating func number(_ name: StaticString, ifPresent v: Double?) {
    guard let v else { return }
    key(name)
    number(v)
  }

  public mutating func number(_ v: Double) {
    separate()
    reserve(Self.maxNumberBytes)
    count = Self.writeNumber(v, at: base + count) - base
  }

  /// The most bytes `writeNumber` writes: Swift's own form of a double is at most 24.
  static let maxNumberBytes = 32

  /// `v` as `number` writes it, at `p` (room for `maxNumberBytes`), returning where it ends.
  static func writeNumber(_ v: Double, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    // Comparisons and conversions only: `rounded()` is a call into libm on this target (no
    // SSE4.1), and numbers are most of a `gesture` message.
    let magnitude = v.magnitude
    if magnitude < 1e15 {
      let whole = Int64(v)
      if Double(whole) == v { return writeInt(whole, at: p) }
      if magnitude < 9e12 { return writeMillionths(v, at: p) }
    } else if !v.isFinite {
      return writeLiteral("null", at: p)
    }
    var text = v.description
    return text.withUTF8 { utf8 in
      precondition(utf8.count <= maxNumberBytes)
      copy(utf8.baseAddress.unsafelyUnwrapped, to: p, utf8.count)
      return p + utf8.count
    }
  }

  @inline(__always) static func writeLiteral(_ s: StaticString, at p: UnsafeMutablePointer<UInt8>)
    -> UnsafeMutablePointer<UInt8>
  {
    copy(s.utf8Start, to: p, s.utf8CodeUnitCount)
    return p + s.utf8CodeUnitCount
  }

  /// `v` rounded to millionths, half away from zero (as `rounded()`), trailing zeros dropped.
  /// `|v| < 9e12`, so `v * 1e6` fits an Int64 and the whole part has at most 13 digits.
  /// At `p`, room for 21 bytes: a sign, 13 digits, the point and six more.
  private static func writeMillionths(_ v: Double, at start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    let scaled = v * 1e6
    var millionths = Int64(scaled)
    // Exact: a double less its integer part loses no bits.
    let rest = scaled - Double(millionths)
    if rest >= 0.5 {
      millionths &+= 1
    } else if rest <= -0.5 {
      millionths &-= 1
    }
    var p = start
    if millionths < 0 {
      p.initialize(to: UInt8(ascii: "-"))
      p += 1
    }
    let magnitude = millionths.magnitude
    let whole = magnitude / 1_000_000
    p = Self.writeDigits(of: whole, at: p)
    // Unsigned 32-bit: divisions by constants are a multiplication and a shift each.
    let fraction = UInt32(truncatingIfNeeded: magnitude &- whole &* 1_000_000)
    if fraction != 0 {
      // The point and all six digits as three pairs; then the trailing zeros taken back (at
      // least one digit is not zero) by the pairs that are zero, and one digit more if the
      // last pair kept ends in one: no loop of divisions for the digits or for the zeros.
      let high = fraction / 10_000
      let rest = fraction &- high &* 10_000
      let middle = rest / 100
      let low = rest &- middle &* 100
      p.initialize(to: UInt8(ascii: "."))
      Self.writePair(Int(truncatingIfNeeded: high), at: p + 1)
      Self.writePair(Int(truncatingIfNeeded: middle), at: p + 3)
      Self.writePair(Int(truncatingIfNeeded: low), at: p + 5)
      var n = low != 0 ? 7 : middle != 0 ? 5 : 3
      if p[n &- 1] == UInt8(ascii: "0") { n &-= 1 }
      p += n
    }
    return p
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
    reserve(Self.maxIntBytes)
    count = Self.writeInt(v, at: base + count) - base
  }

  /// A sign and up to 19 digits.
  static let maxIntBytes = 20

  /// `v` at `p` (room for `maxIntBytes`), returning where it ends.
  static func writeInt(_ v: Int64, at start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    var p = start
    if v < 0 {
      p.initialize(to: UInt8(ascii: "-"))
      p += 1
    }
    return writeDigits(of: v.magnitude, at: p)
  }

  /// "00" to "99": two digits per division.
  private static var digitPairs: StaticString {
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
  }

  /// The two digits of `value` (below 100) at `p`, as one store.
  @inline(__always) private static func writePair(_ value: Int, at p: UnsafeMutablePointer<UInt8>) {
    let pair = UnsafeRawPointer(digitPairs.utf8Start).loadUnaligned(fromByteOffset: value &* 2, as: UInt16.self)
    UnsafeMutableRawPointer(p).storeBytes(of: pair, as: UInt16.self)
  }

  /// The decimal digits of `value` at `p` (room for 20 reserved), returning where they end.
  /// Ids, counts and most integer parts are one to four digits, written in place; longer ones
  /// are written last digits first, two per division by the constant 100 (a multiplication),
  /// into a buffer on the stack, then copied (at least five bytes: no byte loop, which the
  /// compiler makes a call to `memcpy`): no count of the digits beforehand.
  @inline(__always) private static func writeDigits(of value: UInt64, at p: UnsafeMutablePointer<UInt8>)
    -> UnsafeMutablePointer<UInt8>
  {
    if value < 10 {
      p.initialize(to: UInt8(truncatingIfNeeded: value) &+ 0x30)
      return p + 1
    }
    if value < 100 {
      writePair(Int(truncatingIfNeeded: value), at: p)
      return p + 2
    }
    // Coordinates are mostly three or four digits: two pairs, the first possibly one digit.
    if value < 10_000 {
      let high = Int(truncatingIfNeeded: value / 100)
      let low = Int(truncatingIfNeeded: value % 100)
      if high < 10 {
        p.initialize(to: UInt8(truncatingIfNeeded: high) &+ 0x30)
        writePair(low, at: p + 1)
        return p + 3
      }
      writePair(high, at: p)
      writePair(low, at: p + 2)
      return p + 4
    }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    return withUnsafeMutableBytes(of: &digits) { buffer in
      let end = buffer.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self) + buffer.count
      var i = end
      var rest = value
      while rest >= 100 {
        let (q, r) = rest.quotientAndRemainder(dividingBy: 100)
        i -= 2
        writePair(Int(truncatingIfNeeded: r), at: i)
        rest = q
      }
      if rest >= 10 {
        i -= 2
        writePair(Int(truncatingIfNeeded: rest), at: i)
      } else {
        i -= 1
        i.initialize(to: UInt8(truncatingIfNeeded: rest) &+ 0x30)
      }
      let n = end - i
      copy(UnsafePointer(i), to: p, n)
      return p + n
    }
  }

  private mutating func writeString(_ s: String) {
    // Most strings (ids, names, states) need no escaping: copy their bytes in one go, quotes
    // included, after one capacity check.
    let copied =
      s.utf8.withContiguousStorageIfAvailable { utf8 in
        guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
        putQuoted(utf8.baseAddress, count: utf8.count)
        return true
      } ?? false
    if copied { return }
    put(UInt8(ascii: "\""))
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

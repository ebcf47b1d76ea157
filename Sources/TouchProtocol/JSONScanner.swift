#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A byte-level JSON reader over a borrowed buffer: the hot path for `frame`.
/// It validates JSON syntax (RFC 8259) while reading, allocates nothing for numbers
/// and plain keys, and reports NaN/Infinity spellings as `non_finite` rather than `bad_json`.
struct JSONScanner {
  enum Failure: Error {
    case syntax(String)
    case nonFinite(String)
    case tooDeep
  }

  /// A string token: the bytes between the quotes, still escaped if `escaped`.
  struct RawString {
    var start: Int
    var end: Int
    var escaped: Bool
  }

  enum ValueKind {
    case object, array, string, number, bool, null, nonFinite, invalid
  }

  let bytes: UnsafeRawBufferPointer
  var index: Int = 0
  let maxDepth: Int
  /// While set, a NaN/Infinity spelling or an overflowing number is noted in `nonFinite` and
  /// read as a value instead of thrown: one sample of a `frames` message is refused for it,
  /// not the whole message.
  var noteNonFinite = false
  /// The first non-finite word read while `noteNonFinite` was set.
  var nonFinite: String?

  init(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  var atEnd: Bool { index >= bytes.count }

  @inline(__always)
  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }

  @inline(__always)
  func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

  // Inlined, with the error made out of line: it runs for every bracket, colon and string of
  // a frame, and as a call it cost more than its work.
  @inline(__always)
  mutating func expect(_ byte: UInt8) throws(Failure) {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == byte else { throw expected(byte) }
    index += 1
  }

  @inline(never)
  private func expected(_ byte: UInt8) -> Failure {
    .syntax("expected '\(Character(Unicode.Scalar(byte)))' at byte \(index)")
  }

  /// What the next value is, judged by its first byte (after whitespace).
  mutating func peekKind() -> ValueKind {
    skipWhitespace()
    guard let c = peek() else { return .invalid }
    switch c {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
    case UInt8(ascii: "n"): return .null
    case UInt8(ascii: "N"), UInt8(ascii: "I"): return .nonFinite
    case UInt8(ascii: "-"):
      if index + 1 < bytes.count, isAlpha(bytes[index + 1]) { return .nonFinite }
      return .number
    case UInt8(ascii: "+"):
      // JSON has no '+' sign, but JSON5 and others accept +Infinity and +NaN: non_finite.
      if index + 1 < bytes.count, isAlpha(bytes[index + 1]) { return .nonFinite }
      return .invalid
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    default: return .invalid
    }
  }

  /// Iterates the members of an object; `body` must consume each value.
  mutating func readObject(
    depth: Int, _ body: (inout JSONScanner, RawString) throws(Failure) -> Void
  ) throws(Failure) {
    guard depth <= maxDepth else { throw .tooDeep }
    try expect(UInt8(ascii: "{"))
    skipWhitespace()
    if peek() == UInt8(ascii: "}") {
      index += 1
      return
    }
    while true {
      skipWhitespace()
      guard peek() == UInt8(ascii: "\"") else { throw .syntax("expected a member name at byte \(index)") }
      let key = try readString()
      try expect(UInt8(ascii: ":"))
      try body(&self, key)
      skipWhitespace()
      guard let c = peek() else { throw .syntax("unterminated object") }
      index += 1
      if c == UInt8(ascii: "}") { return }
      guard c == UInt8(ascii: ",") else { throw .syntax("expected ',' or '}' at byte \(index - 1)") }
    }
  }

  /// Iterates the elements of an array; `body` must consume each value.
  mutating func readArray(depth: Int, _ body: (inout JSONScanner, Int) throws(Failure) -> Void)
    throws(Failure)
  {
    guard depth <= maxDepth else { throw .tooDeep }
    try expect(UInt8(ascii: "["))
    skipWhitespace()
    if peek() == UInt8(ascii: "]") {
      index += 1
      return
    }
    var n = 0
    while true {
      try body(&self, n)
      n += 1
      skipWhitespace()
      guard let c = peek() else { throw .syntax("unterminated array") }
      index += 1
      if c == UInt8(ascii: "]") { return }
      guard c == UInt8(ascii: ",") else { throw .syntax("expected ',' or ']' at byte \(index - 1)") }
    }
  }

  /// Reads a string token, validating escapes; control characters are rejected as JSON requires.
  mutating func readString() throws(Failure) -> RawString {
    try expect(UInt8(ascii: "\""))
    let start = index
    var escaped = false
    while index < bytes.count {
      let c = bytes[index]
      if c == UInt8(ascii: "\"") {
        let s = RawString(start: start, end: index, escaped: escaped)
        index += 1
        return s
      }
      if c < 0x20 { throw .syntax("control character in string at byte \(index)") }
      if c == UInt8(ascii: "\\") {
        escaped = true
        index += 1
        guard index < bytes.count else { break }
        switch bytes[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
          UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
          index += 1
        case UInt8(ascii: "u"):
          guard index + 4 < bytes.count else { throw .syntax("truncated \\u escape") }
          for k in 1...4 where hexValue(bytes[index + k]) == nil {
            throw .syntax("bad \\u escape at byte \(index)")
          }
          index += 5
        default:
          throw .syntax("bad escape at byte \(index)")
        }
        continue
      }
      index += 1
    }
    throw .syntax("unterminated string")
  }

  /// The decoded text of a string token.
  func string(_ raw: RawString) -> String {
    let slice = UnsafeRawBufferPointer(rebasing: bytes[raw.start..<raw.end])
    if !raw.escaped { return String(decoding: slice, as: UTF8.self) }
    var out: [UInt8] = []
    out.reserveCapacity(slice.count)
    var i = 0
    var pendingHigh: UInt32? = nil
    func appendScalar(_ v: UInt32, _ out: inout [UInt8]) {
      let scalar = Unicode.Scalar(v) ?? "\u{FFFD}"
      out.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
    while i < slice.count {
      let c = slice[i]
      guard c == UInt8(ascii: "\\") else {
        if let h = pendingHigh {
          appendScalar(h, &out)
          pendingHigh = nil
        }
        out.append(c)
        i += 1
        continue
      }
      let e = slice[i + 1]
      i += 2
      if e == UInt8(ascii: "u") {
        var v: UInt32 = 0
        for k in 0..<4 { v = v << 4 | UInt32(hexValue(slice[i + k]) ?? 0) }
        i += 4
        if let h = pendingHigh {
          pendingHigh = nil
          if v >= 0xDC00 && v <= 0xDFFF {
            appendScalar(0x10000 + ((h - 0xD800) << 10) + (v - 0xDC00), &out)
            continue
          }
          appendScalar(h, &out)
        }
        if v >= 0xD800 && v <= 0xDBFF {
          pendingHigh = v
        } else {
          appendScalar(v, &out)
        }
        continue
      }
      if let h = pendingHigh {
        appendScalar(h, &out)
        pendingHigh = nil
      }
      switch e {
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      default: out.append(e)
      }
    }
    if let h = pendingHigh { appendScalar(h, &out) }
    return String(decoding: out, as: UTF8.self)
  }

  /// True if an unescaped string token equals `literal` (compared byte for byte).
  // Inlined: every member name of a frame is compared with several literals, most of them
  // settled by the length alone; an escaped name takes the slow path out of line.
  @inline(__always)
  func equals(_ raw: RawString, _ literal: StaticString) -> Bool {
    if raw.escaped { return escapedEquals(raw, literal) }
    let n = raw.end - raw.start
    guard n == literal.utf8CodeUnitCount else { return false }
    let lit = literal.utf8Start
    for k in 0..<n where bytes[raw.start + k] != lit[k] { return false }
    return true
  }

  @inline(never)
  private func escapedEquals(_ raw: RawString, _ literal: StaticString) -> Bool {
    string(raw) == literal.description
  }

  /// Reads a number token. Exact for the common case (up to 19 significant digits and a small
  /// exponent); anything else goes through strtod so the result is always correctly rounded.
  mutating func readNumber() throws(Failure) -> Double {
    skipWhitespace()
    let start = index
    if peek() == UInt8(ascii: "-") { index += 1 }
    if index < bytes.count, isAlpha(bytes[index]) {
      index = start
      try skipNonFinite()
      return .nan
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var exponent = 0
    var intDigits = 0
    while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
      if digits < 19 {
        mantissa = mantissa &* 10 &+ UInt64(bytes[index] - 0x30)
        if mantissa != 0 { digits += 1 }
      } else {
        exponent += 1
      }
      intDigits += 1
      index += 1
    }
    guard intDigits > 0 else { throw .syntax("bad number at byte \(start)") }
    if intDigits > 1 && bytes[index - intDigits] == 0x30 {
      throw .syntax("leading zero in number at byte \(start)")
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      var fracDigits = 0
      while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
        if digits < 19 {
          mantissa = mantissa &* 10 &+ UInt64(bytes[index] - 0x30)
          if mantissa != 0 { digits += 1 }
          exponent -= 1
        }
        fracDigits += 1
        index += 1
      }
      guard fracDigits > 0 else { throw .syntax("bad fraction at byte \(start)") }
    }
    var slow = digits >= 19
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      var negative = false
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
        negative = bytes[index] == UInt8(ascii: "-")
        index += 1
      }
      var e = 0
      var expDigits = 0
      while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
        if e < 100_000 { e = e * 10 + Int(bytes[index] - 0x30) }
        expDigits += 1
        index += 1
      }
      guard expDigits > 0 else { throw .syntax("bad exponent at byte \(start)") }
      exponent += negative ? -e : e
    }
    let negative = bytes[start] == UInt8(ascii: "-")
    if !slow && mantissa < (1 << 53) && exponent >= -22 && exponent <= 22 {
      let m = Double(mantissa)
      let v = exponent >= 0 ? m * JSONScanner.powersOf10[exponent] : m / JSONScanner.powersOf10[-exponent]
      return negative ? -v : v
    }
    slow = true
    let value = strtodSlice(start, index)
    guard value.isFinite else {
      try refuseNonFinite(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
      return value
    }
    return value
  }

  private static let powersOf10: [Double] = (0...22).map { e in
    var v = 1.0
    for _ in 0..<e { v *= 10 }
    return v
  }

  private func strtodSlice(_ start: Int, _ end: Int) -> Double {
    let n = end - start
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buf in
      for k in 0..<n { buf[k] = CChar(bitPattern: bytes[start + k]) }
      buf[n] = 0
      return strtod(buf.baseAddress!, nil)
    }
  }

  /// Consumes a NaN/Infinity spelling (NaN, -NaN, Infinity, -Infinity, Inf, nan...) and throws
  /// (or, under `noteNonFinite`, notes it and returns); any other word is a syntax error.
  mutating func skipNonFinite() throws(Failure) {
    let start = index
    if peek() == UInt8(ascii: "-") || peek() == UInt8(ascii: "+") { index += 1 }
    while index < bytes.count, isAlpha(bytes[index]) { index += 1 }
    let word = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    let bare = word.trimmingPrefix { $0 == "-" || $0 == "+" }.lowercased()
    if bare == "nan" || bare == "infinity" || bare == "inf" { return try refuseNonFinite(word) }
    throw .syntax("unexpected '\(word)' at byte \(start)")
  }

  private mutating func refuseNonFinite(_ word: String) throws(Failure) {
    guard noteNonFinite else { throw .nonFinite(word) }
    if nonFinite == nil { nonFinite = word }
  }

  /// Consumes any value, validating it.
  mutating func skipValue(depth: Int) throws(Failure) {
    switch peekKind() {
    case .object:
      try readObject(depth: depth + 1) { (s: inout JSONScanner, _) throws(Failure) in
        try s.skipValue(depth: depth + 1)
      }
    case .array:
      try readArray(depth: depth + 1) { (s: inout JSONScanner, _) throws(Failure) in
        try s.skipValue(depth: depth + 1)
      }
    case .string: _ = try readString()
    case .number:
      // A number that overflows a double is refused wherever it stands, like NaN.
      _ = try readNumber()
    case .bool, .null: try readLiteral()
    case .nonFinite: try skipNonFinite()
    case .invalid:
      if atEnd { throw .syntax("unexpected end of input") }
      if isAlpha(bytes[index]) { return try skipNonFinite() }
      throw .syntax("unexpected byte 0x\(String(bytes[index], radix: 16)) at \(index)")
    }
  }

  mutating func readLiteral() throws(Failure) {
    _ = try readBoolOrNull()
  }

  /// Reads `true`, `false` or `null` (nil).
  mutating func readBoolOrNull() throws(Failure) -> Bool? {
    skipWhitespace()
    if matchWord("true") { return true }
    if matchWord("false") { return false }
    if matchWord("null") { return nil }
    if let c = peek(), isAlpha(c) {
      try skipNonFinite()
      return nil
    }
    throw .syntax("bad literal at byte \(index)")
  }

  /// Consumes `literal` if the bytes here are exactly it (no whitespace skipped).
  // Inlined: the compact frame reader matches every member name and bracket with it, and the
  // lengths are constants: 8- or 4-byte compares, the last one overlapping, as JSONWriter copies.
  @inline(__always)
  mutating func consume(_ literal: StaticString) -> Bool {
    let n = literal.utf8CodeUnitCount
    guard bytes.count - index >= n, let here = bytes.baseAddress else { return false }
    let p = here + index
    let lit = UnsafeRawPointer(literal.utf8Start)
    if n >= 8 {
      // 8 bytes at a time, the last 8 overlapping what came before.
      var k = 0
      while k + 8 < n {
        guard (p + k).loadUnaligned(as: UInt64.self) == (lit + k).loadUnaligned(as: UInt64.self) else { return false }
        k += 8
      }
      guard (p + n - 8).loadUnaligned(as: UInt64.self) == (lit + n - 8).loadUnaligned(as: UInt64.self) else {
        return false
      }
    } else if n >= 4 {
      guard p.loadUnaligned(as: UInt32.self) == lit.loadUnaligned(as: UInt32.self),
        (p + n - 4).loadUnaligned(as: UInt32.self) == (lit + n - 4).loadUnaligned(as: UInt32.self)
      else { return false }
    } else {
      for k in 0..<n where p.load(fromByteOffset: k, as: UInt8.self) != lit.load(fromByteOffset: k, as: UInt8.self) {
        return false
      }
    }
    index += n
    return true
  }

  /// Consumes `word` if it stands here as a whole word (no letter right after it).
  private mutating func matchWord(_ word: StaticString) -> Bool {
    let n = word.utf8CodeUnitCount
    guard index + n <= bytes.count else { return false }
    let w = word.utf8Start
    for k in 0..<n where bytes[index + k] != w[k] { return false }
    if index + n < bytes.count, isAlpha(bytes[index + n]) { return false }
    index += n
    return true
  }

  /// After the top-level value only whitespace may follow.
  mutating func expectEnd() throws(Failure) {
    skipWhitespace()
    guard atEnd else { throw .syntax("trailing data at byte \(index)") }
  }
}

@inline(__always)
private func isAlpha(_ c: UInt8) -> Bool {
  (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
}

@inline(__always)
private func hexValue(_ c: UInt8) -> UInt8? {
  switch c {
  case 0x30...0x39: return c - 0x30
  case 0x41...0x46: return c - 0x41 + 10
  case 0x61...0x66: return c - 0x61 + 10
  default: return nil
  }
}

/// A JSON value as a JOSE header, a JWT's claims or a JWKS holds it. Parsed by a small
/// recursive-descent parser of our own: strict RFC 8259 (no trailing commas, no comments, no
/// leading zeros), depth-limited so hostile input cannot exhaust the stack, and with no
/// Foundation bridging between booleans and numbers. Duplicate member names are refused
/// (RFC 7515 §4 lets a parser refuse them, and a token whose `exp` means two things is suspect).
public enum JOSEJSON: Equatable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JOSEJSON])
  case object([String: JOSEJSON])

  /// Nesting deeper than this is refused: real headers, claims and key sets are two or three deep.
  public static let maxDepth = 32

  public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
  }

  public subscript(key: String) -> JOSEJSON? {
    if case .object(let members) = self { return members[key] }
    return nil
  }

  public var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  public var number: Double? {
    if case .number(let n) = self { return n }
    return nil
  }

  public var object: [String: JOSEJSON]? {
    if case .object(let o) = self { return o }
    return nil
  }

  public var array: [JOSEJSON]? {
    if case .array(let a) = self { return a }
    return nil
  }

  /// Parses exactly one JSON value (surrounding whitespace allowed) from UTF-8 bytes.
  public static func parse(_ bytes: some Collection<UInt8>) throws(ParseError) -> JOSEJSON {
    var parser = Parser(bytes: Array(bytes))
    let value = try parser.value(depth: 0)
    parser.skipWhitespace()
    guard parser.index == parser.bytes.count else { throw ParseError("trailing bytes after the JSON value") }
    return value
  }

  private struct Parser {
    let bytes: [UInt8]
    var index = 0

    mutating func skipWhitespace() {
      while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) throws(ParseError) -> JOSEJSON {
      guard depth < JOSEJSON.maxDepth else { throw ParseError("nested too deep") }
      skipWhitespace()
      guard index < bytes.count else { throw ParseError("unexpected end") }
      switch bytes[index] {
      case UInt8(ascii: "{"): return try object(depth: depth)
      case UInt8(ascii: "["): return try array(depth: depth)
      case UInt8(ascii: "\""): return .string(try string())
      case UInt8(ascii: "t"):
        try literal("true")
        return .bool(true)
      case UInt8(ascii: "f"):
        try literal("false")
        return .bool(false)
      case UInt8(ascii: "n"):
        try literal("null")
        return .null
      default: return .number(try number())
      }
    }

    mutating func literal(_ word: StaticString) throws(ParseError) {
      let n = word.utf8CodeUnitCount
      guard index + n <= bytes.count else { throw ParseError("unexpected end") }
      let expected = UnsafeBufferPointer(start: word.utf8Start, count: n)
      guard bytes[index..<index + n].elementsEqual(expected) else { throw ParseError("unknown literal") }
      index += n
    }

    mutating func object(depth: Int) throws(ParseError) -> JOSEJSON {
      index += 1
      var members: [String: JOSEJSON] = [:]
      skipWhitespace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      while true {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
          throw ParseError("expected a member name")
        }
        let name = try string()
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw ParseError("expected ':'") }
        index += 1
        let v = try value(depth: depth + 1)
        guard members.updateValue(v, forKey: name) == nil else { throw ParseError("duplicate member name") }
        skipWhitespace()
        guard index < bytes.count else { throw ParseError("unexpected end") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
        } else if bytes[index] == UInt8(ascii: "}") {
          index += 1
          return .object(members)
        } else {
          throw ParseError("expected ',' or '}'")
        }
      }
    }

    mutating func array(depth: Int) throws(ParseError) -> JOSEJSON {
      index += 1
      var items: [JOSEJSON] = []
      skipWhitespace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(items)
      }
      while true {
        items.append(try value(depth: depth + 1))
        skipWhitespace()
        guard index < bytes.count else { throw ParseError("unexpected end") }
        if bytes[index] == UInt8(ascii: ",") {
          index += 1
        } else if bytes[index] == UInt8(ascii: "]") {
          index += 1
          return .array(items)
        } else {
          throw ParseError("expected ',' or ']'")
        }
      }
    }

    mutating func string() throws(ParseError) -> String {
      index += 1
      var out: [UInt8] = []
      while true {
        guard index < bytes.count else { throw ParseError("unterminated string") }
        let b = bytes[index]
        index += 1
        switch b {
        case UInt8(ascii: "\""):
          guard let s = String(validating: out, as: UTF8.self) else { throw ParseError("a string is not UTF-8") }
          return s
        case UInt8(ascii: "\\"):
          guard index < bytes.count else { throw ParseError("unterminated escape") }
          let e = bytes[index]
          index += 1
          switch e {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
          case UInt8(ascii: "b"): out.append(0x08)
          case UInt8(ascii: "f"): out.append(0x0C)
          case UInt8(ascii: "n"): out.append(0x0A)
          case UInt8(ascii: "r"): out.append(0x0D)
          case UInt8(ascii: "t"): out.append(0x09)
          case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
              guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
              else { throw ParseError("lone surrogate") }
              index += 2
              let low = try hex4()
              guard (0xDC00..<0xE000).contains(low) else { throw ParseError("lone surrogate") }
              scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
              throw ParseError("lone surrogate")
            }
            guard let u = Unicode.Scalar(scalar) else { throw ParseError("bad escape") }
            out.append(contentsOf: Array(String(Character(u)).utf8))
          default: throw ParseError("bad escape")
          }
        case 0..<0x20: throw ParseError("control character in a string")
        default: out.append(b)
        }
      }
    }

    mutating func hex4() throws(ParseError) -> UInt32 {
      guard index + 4 <= bytes.count else { throw ParseError("short \\u escape") }
      var v: UInt32 = 0
      for _ in 0..<4 {
        let c = bytes[index]
        index += 1
        let d: UInt32
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
        default: throw ParseError("bad \\u escape")
        }
        v = v << 4 | d
      }
      return v
    }

    /// RFC 8259's number grammar, checked here; the value by `Double(String)`.
    mutating func number() throws(ParseError) -> Double {
      let start = index
      func digits(_ p: inout Parser) -> Int {
        let s = p.index
        while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) {
          p.index += 1
        }
        return p.index - s
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
      let intStart = index
      let n = digits(&self)
      guard n > 0 else { throw ParseError("expected a value") }
      if n > 1, bytes[intStart] == UInt8(ascii: "0") { throw ParseError("leading zero") }
      if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        index += 1
        guard digits(&self) > 0 else { throw ParseError("expected digits after '.'") }
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard digits(&self) > 0 else { throw ParseError("expected exponent digits") }
      }
      guard index - start <= 64, let v = Double(String(decoding: bytes[start..<index], as: UTF8.self)), v.isFinite
      else { throw ParseError("number out of range") }
      return v
    }
  }
}

/// base64url without padding (RFC 7515 §2, RFC 4648 §5), as every part of a JWS and every
/// JWK number is written. Strict: padding, other alphabets, whitespace and non-zero unused
/// bits are refused, so each byte string has exactly one accepted spelling.
public enum Base64URL {
  /// The bytes `text` spells, or nil if it is not strict base64url.
  public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(text.count * 3 / 4)
    var buffer: UInt32 = 0
    var bits = 0
    for c in text {
      guard let v = value(of: c) else { return nil }
      buffer = buffer << 6 | UInt32(v)
      bits += 6
      if bits >= 8 {
        bits -= 8
        out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
        buffer &= (1 << UInt32(bits)) - 1
      }
    }
    // 6 leftover bits cannot come from whole bytes; the bits left over must be zero.
    guard bits < 6, buffer == 0 else { return nil }
    return out
  }

  public static func decode(_ text: String) -> [UInt8]? { decode(Array(text.utf8)) }

  /// The unpadded base64url spelling of `bytes`.
  public static func encode(_ bytes: some Collection<UInt8>) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    var out: [UInt8] = []
    var buffer: UInt32 = 0
    var bits = 0
    for b in bytes {
      buffer = buffer << 8 | UInt32(b)
      bits += 8
      while bits >= 6 {
        bits -= 6
        out.append(alphabet[Int((buffer >> UInt32(bits)) & 63)])
      }
      buffer &= (1 << UInt32(bits)) - 1
    }
    if bits > 0 { out.append(alphabet[Int((buffer << UInt32(6 - bits)) & 63)]) }
    return String(decoding: out, as: UTF8.self)
  }

  private static func value(of c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
    case UInt8(ascii: "-"): return 62
    case UInt8(ascii: "_"): return 63
    default: return nil
    }
  }
}

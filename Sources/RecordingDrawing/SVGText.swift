import Markup
import TouchProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Text and numbers as they go into the SVG: escaped, and coordinates to a hundredth of a
/// point (finer is invisible and only makes a long recording's file bigger).
enum SVGText {
  static func escape(_ s: String) -> String { XMLEscaping.escape(s) }

  static func number(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    if r == r.rounded(), abs(r) < 1e15 { return String(Int(r)) }
    return String(r)
  }

  /// Seconds as a reader wants them on a time axis: 0.5 s, 12 s, 2:05.
  static func seconds(_ s: Double) -> String {
    if s >= 60 {
      let rest = Int(s) % 60
      return "\(Int(s) / 60):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
    return s == s.rounded() ? "\(Int(s)) s" : fixed(s, digits: 1) + " s"
  }

  /// `v` with `digits` decimals, as printf's `%.Nf` writes it (rounded, "-0" kept).
  static func fixed(_ v: Double, digits: Int) -> String {
    let format = "%.\(digits)f"
    var buffer = [CChar](repeating: 0, count: 32)
    let needed = withVaList([v]) { vsnprintf(&buffer, buffer.count, format, $0) }
    if Int(needed) >= buffer.count {
      buffer = [CChar](repeating: 0, count: Int(needed) + 1)
      _ = withVaList([v]) { vsnprintf(&buffer, buffer.count, format, $0) }
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// A JSON value in a sentence: a whole number without ".0", anything else as JSON.
  static func inline(_ v: JSONValue) -> String {
    v.intValue.map(String.init) ?? v.jsonString
  }
}

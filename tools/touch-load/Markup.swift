import Foundation
import Markup

/// Text put into the HTML page and its inline SVG. The page is also well-formed XML (every
/// element closed, nothing unescaped), so any XML parser can read it back, as the tests do.
enum Markup {
  static func escape(_ s: String) -> String { XMLEscaping.escape(s) }

  /// Milliseconds with the digits that matter at their size: 0.412, 3.18, 42.5, 1250.
  static func ms(_ v: Double) -> String {
    if v == 0 { return "0" }
    if v < 1 { return String(format: "%.3f", v) }
    if v < 10 { return String(format: "%.2f", v) }
    if v < 100 { return String(format: "%.1f", v) }
    return String(format: "%.0f", v)
  }

  /// A count or rate, grouped by thousands: 12,480.
  static func count(_ v: Double) -> String {
    let n = Int(v.rounded())
    let digits = String(abs(n))
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
      out.append(c)
    }
    return (n < 0 ? "-" : "") + out
  }

  /// A coordinate in SVG: two decimals are below a pixel's width.
  static func coordinate(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return r == r.rounded() ? String(Int(r)) : String(r)
  }
}

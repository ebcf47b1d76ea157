import Foundation

/// Text and numbers as they go into the SVG: escaped, and coordinates to a hundredth of a
/// point (finer is invisible and only makes a long recording's file bigger).
enum SVGText {
  static func escape(_ s: String) -> String {
    var out = ""
    for c in s.unicodeScalars {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      // Not allowed in XML 1.0, whatever a device named itself.
      case _ where c.value < 0x20: out += " "
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }

  static func number(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    if r == r.rounded(), abs(r) < 1e15 { return String(Int(r)) }
    return String(r)
  }

  /// Seconds as a reader wants them on a time axis: 0.5 s, 12 s, 2:05.
  static func seconds(_ s: Double) -> String {
    if s >= 60 { return String(format: "%d:%02d", Int(s) / 60, Int(s) % 60) }
    return s == s.rounded() ? "\(Int(s)) s" : String(format: "%.1f s", s)
  }
}

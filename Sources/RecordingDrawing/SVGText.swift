import Foundation
import Markup

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
    if s >= 60 { return String(format: "%d:%02d", Int(s) / 60, Int(s) % 60) }
    return s == s.rounded() ? "\(Int(s)) s" : String(format: "%.1f s", s)
  }
}

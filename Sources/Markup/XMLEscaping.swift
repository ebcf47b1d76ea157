/// Text as it may stand in HTML and XML (SVG) content and attribute values: the five markup
/// characters as entities, and the control characters XML 1.0 does not allow (all but tab and
/// newline) as spaces, whatever a device or a server named itself. The landing page, the
/// recording drawing and touch-load's report share it.
public enum XMLEscaping {
  public static func escape(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      case _ where c.value < 0x20 && c != "\n" && c != "\t": out += " "
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }
}

import CQREncode
import Markup

/// QR codes from Debian's libqrencode, drawn as SVG here.
enum QRCode {
  /// The modules of `text` encoded as 8-bit data with error correction level M, row by row
  /// (true: dark), without the quiet zone; nil when the text is too long for a QR code.
  static func matrix(for text: String) -> [[Bool]]? {
    guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
    defer { QRcode_free(code) }
    let width = Int(code.pointee.width)
    guard width > 0, let data = code.pointee.data else { return nil }
    return (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
  }

  /// An SVG of the code with a 4-module quiet zone: one `path` whose dark runs are
  /// `M{x} {y}h{n}v1h-{n}z`, in module units (`viewBox` 0 0 N N).
  static func svg(for text: String, pixelsPerModule: Int = 8) -> String? {
    guard let m = matrix(for: text) else { return nil }
    let quiet = 4
    let size = m.count + 2 * quiet
    var d = ""
    for (y, row) in m.enumerated() {
      var x = 0
      while x < row.count {
        guard row[x] else {
          x += 1
          continue
        }
        var run = 1
        while x + run < row.count, row[x + run] { run += 1 }
        d += "M\(x + quiet) \(y + quiet)h\(run)v1h-\(run)z"
        x += run
      }
    }
    let px = size * pixelsPerModule
    return """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" width="\(px)" height="\(px)" \
      shape-rendering="crispEdges" data-modules="\(m.count)">
      <title>\(XMLEscaping.escape(text))</title>
      <rect width="\(size)" height="\(size)" fill="#fff"/>
      <path fill="#000" d="\(d)"/>
      </svg>

      """
  }
}

import CLibWebSockets
import RelayCore

/// Writing an `HTTPResponse` on a wsi, whole, in one go. lws' own header helpers can emit an
/// HTTP/1.0 status line, which some clients reject, so the status line is ours.
extension HTTPResponse {
  /// On every answer: no MIME sniffing, and no Referer, as a page's URL may carry `?token=`.
  static let securityHeaders = "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
  /// On pages: their own scripts, styles and images only, WebSockets, and no framing by
  /// other sites (a framed pad could be steered by the framing page).
  static let pageHeaders =
    "Content-Security-Policy: default-src 'self'; connect-src 'self' ws: wss:; img-src 'self'; object-src 'none'; "
    + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'\r\nX-Frame-Options: DENY\r\n"

  /// Writes the response; false if the connection failed.
  func send(on wsi: OpaquePointer) -> Bool {
    LWSRawWrite.send(head, body, on: wsi)
  }

  /// The whole answer, for a socket lws never had (`LWSDriver.refuseWithSpare`); it closes
  /// the connection after.
  var bytes: [UInt8] {
    var closing = self
    closing.headers.append(("Connection", "close"))
    return closing.head + body
  }

  private var head: [UInt8] {
    // Nothing is cached unless the route says otherwise.
    let cache = headers.contains { $0.0.lowercased() == "cache-control" } ? "" : "Cache-Control: no-store\r\n"
    let extra = headers.map { "\($0.0): \($0.1)\r\n" }.joined()
    let page = contentType.hasPrefix("text/html") ? Self.pageHeaders : ""
    let head =
      "HTTP/1.1 \(status) \(reasonPhrase)\r\nContent-Type: \(contentType)\r\n"
      + "Content-Length: \(body.count)\r\n\(cache)\(Self.securityHeaders)\(page)\(extra)\r\n"
    return Array(head.utf8)
  }
}

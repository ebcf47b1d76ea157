import CLibWebSockets
import Foundation

/// A plain HTTP GET on the server's port.
struct HTTPRequest {
  var path: String
  var args: [(String, String)]
  /// For reading further headers (`lws_hdr_copy`), on the service thread only.
  var wsi: OpaquePointer

  func arg(_ name: String) -> String? { args.first { $0.0 == name }?.1 }
}

extension HTTPRequest {
  /// The path and the decoded `name=value` query arguments.
  static func target(of wsi: OpaquePointer) -> (path: String, args: [(String, String)]) {
    var buf = [CChar](repeating: 0, count: 2048)
    let n = lws_hdr_copy(wsi, &buf, Int32(buf.count), WSI_TOKEN_GET_URI)
    let path = n > 0 ? text(buf, count: Int(n)) : ""
    var args: [(String, String)] = []
    for index in 0..<32 {
      let m = lws_hdr_copy_fragment(wsi, &buf, Int32(buf.count), WSI_TOKEN_HTTP_URI_ARGS, Int32(index))
      if m <= 0 { break }
      let arg = text(buf, count: Int(m))
      if let eq = arg.firstIndex(of: "=") {
        args.append((String(arg[..<eq]), String(arg[arg.index(after: eq)...])))
      } else {
        args.append((arg, ""))
      }
    }
    return (path, args)
  }

  /// A request header's value, or nil when absent.
  static func header(_ token: lws_token_indexes, of wsi: OpaquePointer) -> String? {
    let n = lws_hdr_total_length(wsi, token)
    guard n > 0, n < 8192 else { return nil }
    var buf = [CChar](repeating: 0, count: Int(n) + 1)
    let m = lws_hdr_copy(wsi, &buf, Int32(buf.count), token)
    return m > 0 ? text(buf, count: Int(m)) : nil
  }

  /// `?token=` or `Authorization: Bearer`.
  static func token(of wsi: OpaquePointer, args: [(String, String)]) -> String? {
    if let t = args.first(where: { $0.0 == "token" })?.1 { return t }
    guard let auth = header(WSI_TOKEN_HTTP_AUTHORIZATION, of: wsi) else { return nil }
    let parts = auth.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    return String(parts[1]).trimmingCharacters(in: .whitespaces)
  }

  static func peer(of wsi: OpaquePointer) -> String {
    var buf = [CChar](repeating: 0, count: 128)
    guard lws_get_peer_simple(wsi, &buf, buf.count) != nil else { return "?" }
    return text(buf, count: buf.firstIndex(of: 0) ?? buf.count)
  }

  private static func text(_ buf: [CChar], count: Int) -> String {
    String(decoding: buf.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

/// A whole HTTP/1.1 response written in one go. lws' own header helpers can emit an
/// HTTP/1.0 status line, which some clients reject, so the status line is ours.
struct HTTPResponse {
  var status: Int
  var contentType = "text/plain; charset=utf-8"
  var body: [UInt8]
  var headers: [(String, String)] = []

  init(
    status: Int, contentType: String = "text/plain; charset=utf-8", body: [UInt8], headers: [(String, String)] = []
  ) {
    self.status = status
    self.contentType = contentType
    self.body = body
    self.headers = headers
  }

  init(status: Int, body: String, headers: [(String, String)] = []) {
    self.init(status: status, body: Array(body.utf8), headers: headers)
  }

  static let notFound = HTTPResponse(status: 404, body: "not found\n")

  /// On every answer: no MIME sniffing, and no Referer, as a page's URL may carry `?token=`.
  static let securityHeaders = "X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
  /// On pages: their own scripts, styles and images only, WebSockets, and no framing by
  /// other sites (a framed pad could be steered by the framing page).
  static let pageHeaders =
    "Content-Security-Policy: default-src 'self'; connect-src 'self' ws: wss:; img-src 'self'; object-src 'none'; "
    + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'\r\nX-Frame-Options: DENY\r\n"

  var reasonPhrase: String {
    switch status {
    case 200: return "OK"
    case 400: return "Bad Request"
    case 401: return "Unauthorized"
    case 403: return "Forbidden"
    case 404: return "Not Found"
    case 503: return "Service Unavailable"
    default: return "Status"
    }
  }

  /// Writes the response; false if the connection failed.
  func send(on wsi: OpaquePointer, relay: Relay) -> Bool {
    // Nothing is cached unless the route says otherwise.
    let cache = headers.contains { $0.0.lowercased() == "cache-control" } ? "" : "Cache-Control: no-store\r\n"
    let extra = headers.map { "\($0.0): \($0.1)\r\n" }.joined()
    let page = contentType.hasPrefix("text/html") ? Self.pageHeaders : ""
    let head =
      "HTTP/1.1 \(status) \(reasonPhrase)\r\nContent-Type: \(contentType)\r\n"
      + "Content-Length: \(body.count)\r\n\(cache)\(Self.securityHeaders)\(page)\(extra)\r\n"
    var buffer = [UInt8](repeating: 0, count: relay.headroom)
    buffer.append(contentsOf: head.utf8)
    buffer.append(contentsOf: body)
    let count = buffer.count - relay.headroom
    return buffer.withUnsafeMutableBytes { raw in
      let p = raw.baseAddress!.advanced(by: relay.headroom).assumingMemoryBound(to: UInt8.self)
      return lws_write(wsi, p, count, LWS_WRITE_HTTP) >= 0
    }
  }
}

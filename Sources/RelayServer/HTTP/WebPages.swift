import Markup
import RelayCore
import TouchProtocol

/// The browser pages the server serves itself: `/` (landing), `/pad/{session}` (a phone's
/// touch surface, a source), `/watch/{session}` (an observer view), `/qr/{session}.svg` (the
/// pad URL as a QR code), their files under `/static/` and the JavaScript client module at
/// `/sdk/touchrelay.js`. The files are plain HTML, CSS and
/// JavaScript in `Sources/RelayWebFiles/Web` (SwiftPM resources), read once and served from memory.
struct WebPages {
  let core: RelayCore
  let config: RelayConfiguration

  /// The answer for a web page path, or nil when `request.path` is not one.
  func respond(to request: HTTPRequest) -> HTTPResponse? {
    let path = request.path
    if path == "/" || path == "/index.html" { return landing() }
    if path == Self.sdkPath { return Self.sdk() }
    if path.hasPrefix("/static/") {
      return Self.file(String(path.dropFirst("/static/".count))) ?? .notFound
    }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].isEmpty else { return nil }
    let name = String(parts[2])
    switch parts[1] {
    case "pad", "watch":
      guard SessionName.isValid(name) else { return Self.badSession }
      return Self.file("\(parts[1]).html")
    case "qr":
      guard name.hasSuffix(".svg") else { return .notFound }
      let session = String(name.dropLast(".svg".count))
      guard SessionName.isValid(session) else { return Self.badSession }
      guard let base = baseURL(request) else {
        return HTTPResponse(
          status: 400, body: "a Host header is needed (or run with --public-url)\n")
      }
      guard let svg = QRCode.svg(for: "\(base)/pad/\(session)") else {
        return HTTPResponse(status: 400, body: "the pad URL is too long for a QR code\n")
      }
      return HTTPResponse(status: 200, contentType: "image/svg+xml", body: Array(svg.utf8))
    default:
      return nil
    }
  }

  static let badSession = HTTPResponse(
    status: 400, body: "session names match [A-Za-z0-9_-]{1,64}\n")

  /// `--public-url` when given, else the scheme and `Host` the request came with.
  func baseURL(_ request: HTTPRequest) -> String? {
    if let url = config.publicURL { return url }
    guard let host = request.host, Self.isPlausibleHost(host) else { return nil }
    return (request.isTLS ? "https://" : "http://") + host
  }

  /// `host`, `host:port`, `[v6]:port`: nothing that could change the URL's meaning.
  static func isPlausibleHost(_ host: String) -> Bool {
    !host.isEmpty && host.utf8.count <= 255
      && host.unicodeScalars.allSatisfy { s in
        s.properties.isASCIIHexDigit || ("a"..."z").contains(s) || ("A"..."Z").contains(s)
          || "-.:[]_".unicodeScalars.contains(s)
      }
  }

  // MARK: Landing page

  func landing() -> HTTPResponse {
    guard let template = WebFiles.shared.files["index.html"] else { return WebFiles.missing }
    let list: String
    if config.listSessions && !core.access.requiresTokens {
      let live = sessionSummaries
      if live.isEmpty {
        list = #"<p class="muted" id="no-sessions">No live sessions right now.</p>"#
      } else {
        list =
          #"<ul id="sessions">"#
          + live.map { s in
            let n = XMLEscaping.escape(s.name)
            return #"<li><code>\#(n)</code> — \#(s.sources) source\#(s.sources == 1 ? "" : "s"), "#
              + #"\#(s.observers) observer\#(s.observers == 1 ? "" : "s"): "#
              + #"<a href="/pad/\#(n)">pad</a> · <a href="/watch/\#(n)">watch</a></li>"#
          }.joined() + "</ul>"
      }
    } else {
      list = #"<p class="muted" id="sessions-hidden">This server does not list its sessions.</p>"#
    }
    let html = String(decoding: template.bytes, as: UTF8.self)
      .replacing("<!--SESSIONS-->", with: list)
    return HTTPResponse(status: 200, contentType: template.contentType, body: Array(html.utf8))
  }

  // MARK: Files

  /// The JavaScript client module. Module scripts load in CORS mode, so a page of another
  /// origin (a big-screen app) may import it only with this header; it holds no secret.
  static let sdkPath = "/sdk/touchrelay.js"

  static func sdk() -> HTTPResponse {
    guard var response = file("touchrelay.js") else { return .notFound }
    if response.status == 200 { response.headers.append(("Access-Control-Allow-Origin", "*")) }
    return response
  }

  static func file(_ name: String) -> HTTPResponse? {
    let files = WebFiles.shared
    if files.files.isEmpty { return WebFiles.missing }
    guard let f = files.files[name] else { return nil }
    return HTTPResponse(status: 200, contentType: f.contentType, body: f.bytes)
  }

  // MARK: Sessions

  /// The live sessions, by name, with their peer counts (for the landing page).
  var sessionSummaries: [(name: String, sources: Int, observers: Int)] {
    core.sessions.values
      .map { (name: $0.name, sources: $0.activeSources.count, observers: $0.observers.count) }
      .sorted { $0.name < $1.name }
  }
}

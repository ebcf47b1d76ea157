import CLibWebSockets
import Foundation
import TouchProtocol

/// The browser pages the server serves itself: `/` (landing), `/pad/{session}` (a phone's
/// touch surface, a source), `/watch/{session}` (an observer view), `/qr/{session}.svg` (the
/// pad URL as a QR code) and their files under `/static/`. The files are plain HTML, CSS and
/// JavaScript in `Sources/RelayServer/Web` (SwiftPM resources), read once and served from memory.
enum WebPages {
  /// The answer for a web page path, or nil when `request.path` is not one.
  static func respond(to request: HTTPRequest, relay: Relay) -> HTTPResponse? {
    let path = request.path
    if path == "/" || path == "/index.html" { return landing(relay) }
    if path.hasPrefix("/static/") {
      return file(String(path.dropFirst("/static/".count))) ?? .notFound
    }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].isEmpty else { return nil }
    let name = String(parts[2])
    switch parts[1] {
    case "pad", "watch":
      guard SessionName.isValid(name) else { return badSession }
      return file("\(parts[1]).html")
    case "qr":
      guard name.hasSuffix(".svg") else { return .notFound }
      let session = String(name.dropLast(".svg".count))
      guard SessionName.isValid(session) else { return badSession }
      guard let base = baseURL(request, relay: relay) else {
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
  static func baseURL(_ request: HTTPRequest, relay: Relay) -> String? {
    if let url = relay.config.publicURL { return url }
    guard let host = hostHeader(request.wsi), isPlausibleHost(host) else { return nil }
    return (lws_is_ssl(request.wsi) != 0 ? "https://" : "http://") + host
  }

  /// `host`, `host:port`, `[v6]:port`: nothing that could change the URL's meaning.
  static func isPlausibleHost(_ host: String) -> Bool {
    !host.isEmpty && host.utf8.count <= 255
      && host.unicodeScalars.allSatisfy { s in
        s.properties.isASCIIHexDigit || ("a"..."z").contains(s) || ("A"..."Z").contains(s)
          || "-.:[]_".unicodeScalars.contains(s)
      }
  }

  private static func hostHeader(_ wsi: OpaquePointer) -> String? {
    let n = lws_hdr_total_length(wsi, WSI_TOKEN_HOST)
    guard n > 0, n < 1024 else { return nil }
    var buf = [CChar](repeating: 0, count: Int(n) + 1)
    let m = lws_hdr_copy(wsi, &buf, Int32(buf.count), WSI_TOKEN_HOST)
    guard m > 0 else { return nil }
    return String(decoding: buf.prefix(Int(m)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  // MARK: Landing page

  static func landing(_ relay: Relay) -> HTTPResponse {
    guard let template = WebFiles.shared.files["index.html"] else { return WebFiles.missing }
    let list: String
    if relay.config.listSessions && !relay.access.requiresTokens {
      let live = relay.sessionSummaries
      if live.isEmpty {
        list = #"<p class="muted" id="no-sessions">No live sessions right now.</p>"#
      } else {
        list =
          #"<ul id="sessions">"#
          + live.map { s in
            let n = escape(s.name)
            return #"<li><code>\#(n)</code> — \#(s.sources) source\#(s.sources == 1 ? "" : "s"), "#
              + #"\#(s.observers) observer\#(s.observers == 1 ? "" : "s"): "#
              + #"<a href="/pad/\#(n)">pad</a> · <a href="/watch/\#(n)">watch</a></li>"#
          }.joined() + "</ul>"
      }
    } else {
      list = #"<p class="muted" id="sessions-hidden">This server does not list its sessions.</p>"#
    }
    let html = String(decoding: template.bytes, as: UTF8.self)
      .replacingOccurrences(of: "<!--SESSIONS-->", with: list)
    return HTTPResponse(status: 200, contentType: template.contentType, body: Array(html.utf8))
  }

  // MARK: Files

  static func file(_ name: String) -> HTTPResponse? {
    let files = WebFiles.shared
    if files.files.isEmpty { return WebFiles.missing }
    guard let f = files.files[name] else { return nil }
    return HTTPResponse(status: 200, contentType: f.contentType, body: f.bytes)
  }

  static func escape(_ s: String) -> String {
    var out = ""
    for c in s {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.append(c)
      }
    }
    return out
  }
}

/// The files of `Web/`, by name, read on first use and kept in memory.
struct WebFiles: Sendable {
  struct File: Sendable {
    var contentType: String
    var bytes: [UInt8]
  }

  let files: [String: File]
  let directory: String?

  static let shared = WebFiles.load()

  static let missing = HTTPResponse(
    status: 503,
    body: "the web pages' files were not found next to the executable or in the source tree\n")

  static let contentTypes = [
    "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml",
  ]

  /// SwiftPM copies `Web` into `TouchRelay_RelayServer.resources` next to the built products
  /// (`.build/debug`, `.build/release`); a binary run from elsewhere falls back to the
  /// source tree it was built from.
  static func candidates() -> [String] {
    var dirs: [String] = []
    let bundle = "TouchRelay_RelayServer.resources/Web"
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      dirs.append((exe as NSString).deletingLastPathComponent + "/" + bundle)
    }
    if let url = Bundle.main.executableURL {
      dirs.append(url.deletingLastPathComponent().appendingPathComponent(bundle).path)
    }
    dirs.append(Bundle.main.bundlePath + "/" + bundle)
    dirs.append((#filePath as NSString).deletingLastPathComponent + "/Web")
    return dirs
  }

  static func load() -> WebFiles {
    let fm = FileManager.default
    for dir in candidates() {
      guard let names = try? fm.contentsOfDirectory(atPath: dir), names.contains("index.html")
      else { continue }
      var files: [String: File] = [:]
      for name in names {
        let ext = (name as NSString).pathExtension
        guard let type = contentTypes[ext], let data = fm.contents(atPath: dir + "/" + name) else {
          continue
        }
        files[name] = File(contentType: type, bytes: Array(data))
      }
      return WebFiles(files: files, directory: dir)
    }
    return WebFiles(files: [:], directory: nil)
  }
}

extension Relay {
  /// The live sessions, by name, with their peer counts (for the landing page).
  var sessionSummaries: [(name: String, sources: Int, observers: Int)] {
    sessions.values
      .map { (name: $0.name, sources: $0.activeSources.count, observers: $0.observers.count) }
      .sorted { $0.name < $1.name }
  }
}

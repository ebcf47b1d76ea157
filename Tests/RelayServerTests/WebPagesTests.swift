import Foundation
import RelayServer
import Testing
import TouchRelayClient

/// The browser pages: routes, content types, session-name refusals, the QR code of the pad
/// URL, the landing page's session list, and that no page reaches beyond this server.
@Suite struct WebPagesTests {
  func get(_ relay: TestRelay, _ path: String) async throws -> TouchRelayClient.HTTPResponse {
    try await HTTPClient.get("http://127.0.0.1:\(relay.port)\(path)")
  }

  func contentType(_ r: TouchRelayClient.HTTPResponse) -> String? {
    r.headers.first { $0.0.lowercased() == "content-type" }?.1
  }

  @Test func everyRouteAnswersWithItsContentType() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let expected: [(String, String)] = [
      ("/", "text/html; charset=utf-8"),
      ("/pad/demo", "text/html; charset=utf-8"),
      ("/watch/demo", "text/html; charset=utf-8"),
      ("/pad/A-z_09", "text/html; charset=utf-8"),
      ("/qr/demo.svg", "image/svg+xml"),
      ("/static/style.css", "text/css; charset=utf-8"),
      ("/static/common.js", "text/javascript; charset=utf-8"),
      ("/static/pad.js", "text/javascript; charset=utf-8"),
      ("/static/watch.js", "text/javascript; charset=utf-8"),
      ("/static/replay.js", "text/javascript; charset=utf-8"),
      ("/static/landing.js", "text/javascript; charset=utf-8"),
      ("/static/icon.svg", "image/svg+xml"),
    ]
    for (path, type) in expected {
      let r = try await get(relay, path)
      #expect(r.status == 200, "\(path)")
      #expect(contentType(r) == type, "\(path)")
      #expect(!r.body.isEmpty, "\(path)")
    }
    #expect(try await get(relay, "/pad/demo").text.contains("/static/pad.js"))
    #expect(try await get(relay, "/watch/demo").text.contains("/static/watch.js"))
    for path in [
      "/static/nothing.js", "/static/", "/nope", "/pad/demo/extra", "/qr/demo.png", "/watch",
    ] {
      #expect(try await get(relay, path).status == 404, "\(path)")
    }
    // The WebSocket paths and /healthz are unchanged.
    #expect(try await relay.health()["status"]?.stringValue == "ok")
  }

  /// Pages run only their own scripts, cannot be framed by another site, and no answer
  /// sends a Referer on (page URLs may carry `?token=`) or is MIME-sniffed. The browser check
  /// (tools/e2e) runs the pages under this policy in four engines.
  @Test func pagesCarryAPolicyAndEveryAnswerIsNotSniffed() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    func header(_ r: TouchRelayClient.HTTPResponse, _ name: String) -> String? {
      r.headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
    for path in ["/", "/pad/demo", "/watch/demo"] {
      let r = try await get(relay, path)
      let policy = header(r, "Content-Security-Policy") ?? ""
      for directive in ["default-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"] {
        #expect(policy.contains(directive), "\(path): \(policy)")
      }
      #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "\(path): \(policy)")
      #expect(header(r, "X-Frame-Options") == "DENY", "\(path)")
    }
    for path in ["/", "/static/pad.js", "/qr/demo.svg", "/healthz", "/nope"] {
      let r = try await get(relay, path)
      #expect(header(r, "X-Content-Type-Options") == "nosniff", "\(path)")
      #expect(header(r, "Referrer-Policy") == "no-referrer", "\(path)")
    }
    #expect(header(try await get(relay, "/static/pad.js"), "Content-Security-Policy") == nil)
  }

  @Test func theJavaScriptModuleIsServedToAnyOrigin() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let r = try await HTTPClient.get(
      "http://127.0.0.1:\(relay.port)/sdk/touchrelay.js", headers: [("Origin", "http://big-screen.example")])
    #expect(r.status == 200)
    #expect(contentType(r) == "text/javascript; charset=utf-8")
    #expect(r.header("Access-Control-Allow-Origin") == "*")
    for export in [
      "export function observe(", "export function source(", "export class Observer", "export class Source",
    ] {
      #expect(r.text.contains(export), "\(export)")
    }
    // The pages' own files are for this origin only.
    #expect(try await get(relay, "/static/pad.js").header("Access-Control-Allow-Origin") == nil)
  }

  @Test func badSessionNamesAre400() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let long = String(repeating: "a", count: 65)
    for path in [
      "/pad/bad.name", "/watch/bad%20name", "/pad/", "/watch/", "/pad/\(long)", "/watch/\(long)",
      "/qr/bad!.svg", "/qr/.svg", "/qr/\(long).svg",
    ] {
      let r = try await get(relay, path)
      #expect(r.status == 400, "\(path)")
      #expect(r.text.contains("[A-Za-z0-9_-]{1,64}"), "\(path)")
    }
    #expect(try await get(relay, "/pad/\(String(repeating: "a", count: 64))").status == 200)
  }

  @Test(arguments: [
    "a", "demo", "a-much-longer-session-name_with_more", String(repeating: "z", count: 64),
  ])
  func qrCodeEncodesThePadURL(session: String) async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let r = try await get(relay, "/qr/\(session).svg")
    #expect(r.status == 200)
    let qr = try #require(SVGQRCode(r.text))
    let url = "http://127.0.0.1:\(relay.port)/pad/\(session)"
    #expect(qr.title == url)
    #expect(qr.size == SVGQRCode.expectedModules(byteCount: url.utf8.count))
    qr.checkStructure()
  }

  @Test func qrCodeUsesThePublicURLWhenGiven() async throws {
    let relay = try TestRelay { $0.publicURL = "https://touch.example.org:8443" }
    defer { relay.stop() }
    let qr = try #require(SVGQRCode(try await get(relay, "/qr/stage.svg").text))
    #expect(qr.title == "https://touch.example.org:8443/pad/stage")
    #expect(qr.size == SVGQRCode.expectedModules(byteCount: qr.title.utf8.count))
    qr.checkStructure()
  }

  @Test func landingListsLiveSessionsOnlyWhenAllowed() async throws {
    for list in [true, false] {
      let relay = try TestRelay { $0.listSessions = list }
      defer { relay.stop() }
      let empty = try await get(relay, "/").text
      #expect(!empty.contains("<!--SESSIONS-->"))
      let (screen, _) = try await relay.observer("listed-session")
      let (phone, _) = try await relay.source("listed-session")
      let page = try await get(relay, "/")
      #expect(page.status == 200)
      #expect(page.text.contains("listed-session") == list)
      #expect(page.text.contains(#"href="/watch/listed-session""#) == list)
      if list {
        #expect(empty.contains("No live sessions"))
        #expect(page.text.contains("1 source, 1 observer"))
      } else {
        #expect(page.text.contains("does not list its sessions"))
        #expect(!empty.contains("No live sessions"))
      }
      await phone.close()
      await screen.close()
    }
  }

  /// Every page and every file it loads: nothing from another origin (no CDN, no fonts, no
  /// absolute URLs), and every file it names is served.
  @Test func noPageReachesBeyondThisServer() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    // The replay page's file as well: its route needs a recording (RecordingDownloadTests).
    var queue = ["/", "/pad/demo", "/watch/demo", "/static/replay.html"]
    var seen = Set<String>()
    while let path = queue.popLast() {
      guard seen.insert(path).inserted else { continue }
      let r = try await get(relay, path)
      #expect(r.status == 200, "\(path)")
      if path.hasSuffix(".svg") { continue }  // its xmlns is a name, not a request
      // The one absolute URL allowed: a WebSocket on the page's own host.
      let sameOrigin = #"(location.protocol === "https:" ? "wss://" : "ws://") + location.host"#
      let text = r.text.replacingOccurrences(of: sameOrigin, with: "")
      for scheme in ["http://", "https://", "ws://", "wss://", "//cdn", "@import", "url("] {
        #expect(!text.contains(scheme), "\(path) contains \(scheme)")
      }
      for reference in Self.references(in: text) {
        #expect(
          reference.hasPrefix("/") && !reference.hasPrefix("//"), "\(path) references \(reference)")
        if reference.hasPrefix("/static/") { queue.append(reference) }
      }
      for module in Self.imports(in: text) {
        #expect(module.hasPrefix("/") && !module.hasPrefix("//"), "\(path) imports \(module)")
        queue.append(module)
      }
      if path.hasSuffix(".js") {
        // WebSockets are opened on the page's own host only.
        #expect(!text.contains("new WebSocket(\""), "\(path)")
      }
    }
    #expect(
      seen.isSuperset(of: [
        "/static/common.js", "/static/pad.js", "/static/watch.js", "/static/replay.js", "/static/wall.js",
        "/static/style.css", "/sdk/touchrelay.js",
      ]))
    #expect(
      try await get(relay, "/static/common.js").text.contains(
        #""wss://" : "ws://") + location.host"#))
  }

  /// The modules a script imports (`from "…"`).
  static func imports(in script: String) -> [String] {
    var out: [String] = []
    var rest = script[...]
    while let start = rest.range(of: #"from ""#) {
      let after = rest[start.upperBound...]
      guard let end = after.firstIndex(of: "\"") else { break }
      out.append(String(after[..<end]))
      rest = after[end...]
    }
    return out
  }

  /// `src="…"` and `href="…"` values.
  static func references(in html: String) -> [String] {
    var out: [String] = []
    for attribute in ["src=\"", "href=\""] {
      var rest = html[...]
      while let start = rest.range(of: attribute) {
        let after = rest[start.upperBound...]
        guard let end = after.firstIndex(of: "\"") else { break }
        out.append(String(after[..<end]))
        rest = after[end...]
      }
    }
    return out
  }
}

/// A QR code read back from the server's SVG: the dark runs of its one path
/// (`M{x} {y}h{n}v1h-{n}z`, in modules, 4-module quiet zone).
struct SVGQRCode {
  var title: String
  var size: Int
  var dark: [[Bool]]

  init?(_ svg: String) {
    guard svg.contains("<svg"), svg.hasSuffix("</svg>\n"),
      let viewBox = SVGQRCode.attribute("viewBox", in: svg),
      let total = Int(viewBox.split(separator: " ").last ?? ""),
      let d = SVGQRCode.attribute("d", in: svg),
      let t0 = svg.range(of: "<title>"), let t1 = svg.range(of: "</title>")
    else { return nil }
    title = String(svg[t0.upperBound..<t1.lowerBound])
    size = total - 8
    guard size >= 21, SVGQRCode.attribute("data-modules", in: svg) == String(size) else {
      return nil
    }
    dark = Array(repeating: Array(repeating: false, count: size), count: size)
    for run in d.split(separator: "z") {
      // M{x} {y}h{n}v1h-{n}
      let numbers = run.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
      guard numbers.count == 5, numbers[3] == 1, numbers[2] == numbers[4] else { return nil }
      let (x, y, n) = (numbers[0] - 4, numbers[1] - 4, numbers[2])
      guard y >= 0, y < size, x >= 0, x + n <= size else { return nil }
      for i in x..<(x + n) { dark[y][i] = true }
    }
  }

  static func attribute(_ name: String, in svg: String) -> String? {
    guard let r = svg.range(of: " \(name)=\"") else { return nil }
    let rest = svg[r.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    return String(rest[..<end])
  }

  /// Side of the smallest QR code (versions 1-10, level M, byte mode) holding `byteCount`.
  static func expectedModules(byteCount: Int) -> Int? {
    let capacityM = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213]
    guard let index = capacityM.firstIndex(where: { $0 >= byteCount }) else { return nil }
    return 17 + 4 * (index + 1)
  }

  func module(x: Int, y: Int) -> Bool { dark[y][x] }

  /// Finder patterns in three corners, timing patterns, and both copies of the format
  /// information a reader decodes first: a valid BCH codeword saying level M.
  func checkStructure() {
    for (ox, oy) in [(0, 0), (size - 7, 0), (0, size - 7)] {
      for y in 0..<7 {
        for x in 0..<7 {
          let ring = max(abs(x - 3), abs(y - 3))
          #expect(module(x: ox + x, y: oy + y) == (ring != 2), "finder at \(ox),\(oy)")
        }
      }
    }
    for i in 8..<(size - 8) {
      #expect(module(x: i, y: 6) == (i % 2 == 0), "timing row")
      #expect(module(x: 6, y: i) == (i % 2 == 0), "timing column")
    }
    var first = 0
    var second = 0
    func bit(_ on: Bool, _ i: Int) -> Int { on ? 1 << i : 0 }
    for i in 0...5 { first |= bit(module(x: 8, y: i), i) }
    first |= bit(module(x: 8, y: 7), 6) | bit(module(x: 8, y: 8), 7) | bit(module(x: 7, y: 8), 8)
    for i in 9..<15 { first |= bit(module(x: 14 - i, y: 8), i) }
    for i in 0..<8 { second |= bit(module(x: size - 1 - i, y: 8), i) }
    for i in 8..<15 { second |= bit(module(x: 8, y: size - 15 + i), i) }
    #expect(first == second, "both copies of the format information agree")
    #expect(module(x: 8, y: size - 8), "the dark module")
    let data = (first ^ 0x5412) >> 10
    var rem = data
    for _ in 0..<10 { rem = (rem << 1) ^ ((rem >> 9) * 0x537) }
    #expect(first == ((data << 10 | rem) ^ 0x5412), "format information is a BCH codeword")
    #expect(data >> 3 == 0, "error correction level M")
  }
}

import RelayCore
import TouchProtocol

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `GET /recordings/{session}` lists the session's `--record` files (JSON) and
/// `GET /recordings/{session}/{session}-{serial}.jsonl` serves one, so the watch page can
/// offer "download recording". Both answer as the session's observers are admitted (the same
/// token, the same 401/403), and only a file name of exactly that form, found as a regular
/// file directly in the record directory, is ever read: the name is checked character by
/// character, never joined as a path from what the client sent. Without `--record` the list
/// still answers, empty and saying the server does not record (`"recording":false`), so the
/// page learns that there will be none instead of meeting a 404; any file is 404.
enum RecordingDownload {
  static let prefix = "/recordings/"

  /// The answer for a `/recordings/` path, or nil for any other path.
  static func respond(to request: HTTPRequest, core: RelayCore, config: RelayConfiguration) -> HTTPResponse? {
    guard request.path.hasPrefix(prefix) else { return nil }
    let parts = request.path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 1 || parts.count == 2 else { return .notFound }
    let session = String(parts[0])
    guard SessionName.isValid(session) else { return WebPages.badSession }
    if let refusal = core.accessRefusal(
      session: session, role: .observer, token: request.token, origin: request.origin, address: request.peer,
      wallClock: request.wallClock)
    {
      return refusal
    }
    if parts.count == 1 { return list(session: session, directory: config.recordDirectory) }
    guard let directory = config.recordDirectory else { return .notFound }
    let name = String(parts[1])
    guard serial(of: name, session: session) != nil else { return .notFound }
    let path = directory + "/" + name
    // Not a symbolic link or anything else that could lead out of the directory.
    guard (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular,
      let data = FileManager.default.contents(atPath: path)
    else { return .notFound }
    return HTTPResponse(
      status: 200, contentType: "application/x-ndjson; charset=utf-8", body: Array(data),
      headers: [("Content-Disposition", "attachment; filename=\"\(name)\"")])
  }

  /// The connection serial of `{session}-{serial}.jsonl`, or nil for any other name.
  static func serial(of name: String, session: String) -> Int? {
    let head = session + "-"
    let tail = ".jsonl"
    guard name.hasPrefix(head), name.hasSuffix(tail), name.utf8.count > head.utf8.count + tail.utf8.count else {
      return nil
    }
    let digits = name.utf8.dropFirst(head.utf8.count).dropLast(tail.utf8.count)
    guard digits.count <= 18, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
      return nil
    }
    return Int(String(decoding: digits, as: UTF8.self))
  }

  /// `{"session":..,"recording":true,"recordings":[{"name","connection","bytes","url"}]}`, by
  /// connection; without a record directory `"recording":false` and no recordings.
  static func list(session: String, directory: String?) -> HTTPResponse {
    var found: [(name: String, serial: Int, path: String)] = []
    if let directory {
      for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
        if let serial = serial(of: name, session: session) { found.append((name, serial, directory + "/" + name)) }
      }
      found.sort { $0.serial < $1.serial }
    }
    var w = JSONWriter()
    w.beginObject()
    w.key("session")
    w.string(session)
    w.key("recording")
    w.bool(directory != nil)
    w.key("recordings")
    w.beginArray()
    for (name, serial, path) in found {
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
        attributes[.type] as? FileAttributeType == .typeRegular
      else { continue }
      w.beginObject()
      w.key("name")
      w.string(name)
      w.key("connection")
      w.int(Int64(serial))
      w.key("bytes")
      w.int((attributes[.size] as? UInt).map { Int64(clamping: $0) } ?? 0)
      w.key("url")
      w.string(prefix + session + "/" + name)
      w.endObject()
    }
    w.endArray()
    w.endObject()
    return HTTPResponse(status: 200, contentType: "application/json", body: w.bytes)
  }
}

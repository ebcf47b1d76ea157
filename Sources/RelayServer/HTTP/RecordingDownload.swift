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
/// `?as=observed` serves instead what the session's observers got from that connection, as
/// the server's own replay (`RecordingReplay`, `touch-relay --replay`) gives it, one JSON line
/// `{"rt":<server ms>,"message":<the message as sent>}` each: the replay page plays these, so
/// what it shows is the server's gestures. The replay runs on the server's loop, so a file
/// larger than `observedLimit` is refused (413) rather than replayed.
enum RecordingDownload {
  static let prefix = "/recordings/"
  /// The largest recording `?as=observed` replays. The replay runs on the server's loop and
  /// holds up every live session while it runs, for a time in proportion to the file's size:
  /// this keeps that short (a minute or two of one phone), and a longer recording is
  /// downloaded and replayed offline.
  static let observedLimit = 2 << 20

  /// Where a request for one recording leads: the file, or the answer that refuses it.
  enum Lookup {
    case file(path: String, name: String)
    case answer(HTTPResponse)
  }

  /// The answer for a `/recordings/` path, or nil for any other path.
  static func respond(to request: HTTPRequest, core: RelayCore, config: RelayConfiguration) -> HTTPResponse? {
    guard request.path.hasPrefix(prefix) else { return nil }
    let parts = request.path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 1 || parts.count == 2 else { return .notFound }
    if parts.count == 1 {
      let session = String(parts[0])
      if let refusal = refusal(session: session, request: request, core: core) { return refusal }
      return list(session: session, directory: config.recordDirectory)
    }
    switch lookup(session: String(parts[0]), name: String(parts[1]), request: request, core: core, config: config) {
    case .answer(let refusal):
      return refusal
    case .file(let path, let name):
      switch request.arg("as") {
      case nil: break
      case "observed": return observed(path: path, name: name)
      default: return HTTPResponse(status: 400, body: "as= takes observed (what the session's observers got)\n")
      }
      guard let data = FileManager.default.contents(atPath: path) else { return .notFound }
      return HTTPResponse(
        status: 200, contentType: "application/x-ndjson; charset=utf-8", body: Array(data),
        headers: [("Content-Disposition", "attachment; filename=\"\(name)\"")])
    }
  }

  /// The session's name checked and its observer admission asked: nil when the request may go on.
  static func refusal(session: String, request: HTTPRequest, core: RelayCore) -> HTTPResponse? {
    guard SessionName.isValid(session) else { return WebPages.badSession }
    return core.accessRefusal(
      session: session, role: .observer, token: request.token, origin: request.origin, address: request.peer,
      wallClock: request.wallClock)
  }

  /// The recording `name` of `session`, as an observer of the session may have it (the replay
  /// page's route asks the same).
  static func lookup(
    session: String, name: String, request: HTTPRequest, core: RelayCore, config: RelayConfiguration
  ) -> Lookup {
    if let refusal = refusal(session: session, request: request, core: core) { return .answer(refusal) }
    guard let directory = config.recordDirectory, serial(of: name, session: session) != nil else {
      return .answer(.notFound)
    }
    let path = directory + "/" + name
    // Not a symbolic link or anything else that could lead out of the directory.
    guard (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeRegular
    else { return .answer(.notFound) }
    return .file(path: path, name: name)
  }

  /// What the recording's observers got, replayed by the server, as JSON lines with their times.
  static func observed(path: String, name: String) -> HTTPResponse {
    let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? UInt ?? 0
    guard size <= observedLimit else {
      return HTTPResponse(
        status: 413,
        body: "\(name) is \(size) bytes; ?as=observed replays recordings of at most \(observedLimit) bytes: "
          + "download it and run touch-relay --replay\n")
    }
    guard let data = FileManager.default.contents(atPath: path) else { return .notFound }
    // A recording still being written may end in the middle of a line: what is complete is played.
    let complete = data.lastIndex(of: 0x0A).map { data[...$0] } ?? data[...]
    let messages: [(rt: Double, text: String)]
    do {
      messages = try RecordingReplay.observed(String(decoding: complete, as: UTF8.self))
    } catch {
      return HTTPResponse(status: 422, body: "\(name) cannot be replayed: \(error)\n")
    }
    var body: [UInt8] = []
    for (rt, text) in messages {
      var w = JSONWriter()
      w.beginObject()
      w.key("rt")
      w.number(rt)
      w.key("message")
      var text = text
      text.withUTF8 { w.json(UnsafeRawBufferPointer($0)) }
      w.endObject()
      w.withUnsafeBytes { body.append(contentsOf: $0) }
      body.append(0x0A)
    }
    return HTTPResponse(status: 200, contentType: "application/x-ndjson; charset=utf-8", body: body)
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

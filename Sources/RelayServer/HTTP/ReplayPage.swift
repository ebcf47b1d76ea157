import RelayCore

/// `GET /replay/{session}/{session}-{n}.jsonl`: the page that plays one of the session's
/// recordings in the browser (`replay.html`, `replay.js`), drawn as the watch page draws a
/// live session. It is asked for as the recording itself is (`RecordingDownload.lookup`: the
/// observer token, the same 401/403, 404 for a file that is not there), so the page of a
/// recording nobody may download is not served either; the page then fetches the recording
/// `?as=observed` with the token of its own URL.
enum ReplayPage {
  static let prefix = "/replay/"

  /// The answer for a `/replay/` path, or nil for any other path.
  static func respond(to request: HTTPRequest, core: RelayCore, config: RelayConfiguration) -> HTTPResponse? {
    guard request.path.hasPrefix(prefix) else { return nil }
    let parts = request.path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2 else { return .notFound }
    switch RecordingDownload.lookup(
      session: String(parts[0]), name: String(parts[1]), request: request, core: core, config: config)
    {
    case .answer(let refusal):
      return refusal
    case .file:
      return WebPages.file("replay.html") ?? .notFound
    }
  }
}

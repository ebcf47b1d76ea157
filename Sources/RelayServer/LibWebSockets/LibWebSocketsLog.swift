import CLibWebSockets

#if canImport(Glibc)
  import Glibc
#endif

/// Where libwebsockets' own log lines go. By default lws prints its text to standard error;
/// with `--log-format json` they become JSON lines like the server's (`logger`
/// `libwebsockets`), so a log shipper reading the stream parses every line.
public enum LibWebSocketsLog {
  /// Routes lws' lines (its errors; its warnings and notices at --log-level debug) through
  /// `JSONLogHandler`. The level is set when the server starts (`RelayServer`); lws keeps this
  /// emitter then, as `lws_set_log_level` with no function leaves the emitter as it is.
  public static func routeAsJSONLines() {
    lws_set_log_level(LLL_ERR, emitLine)
  }
}

/// lws' emitter: its level bit to ours, its line without the spaces around it and the trailing
/// newline.
private func emitLine(_ level: Int32, _ line: UnsafePointer<CChar>?) {
  guard let line else { return }
  var text = Substring(String(cString: line))
  while let last = text.last, last == "\n" || last == " " { text.removeLast() }
  while let first = text.first, first == " " { text.removeFirst() }
  let name =
    switch level {
    case LLL_ERR: "error"
    case LLL_WARN: "warning"
    case LLL_NOTICE: "notice"
    default: "debug"
    }
  JSONLogHandler.write(
    JSONLogHandler.line(level: name, message: String(text), logger: "libwebsockets", source: nil), to: STDERR_FILENO)
}

import Logging
import RelayCore
import TouchProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Records one source connection's input as JSON lines: every message as received, every
/// timer firing and the close, each with its server time, so `touch-relay replay` can run the
/// same input through the same code and print what observers got.
final class SourceRecorder {
  private var file: UnsafeMutablePointer<FILE>?
  let path: String

  init?(directory: String, session: String, serial: Int, config: RelayCore.Configuration, rt: Double, logger: Logger) {
    path = "\(directory)/\(session)-\(serial).jsonl"
    guard let f = fopen(path, "w") else {
      logger.error("cannot record", metadata: ["path": "\(path)", "errno": "\(errno)"])
      return nil
    }
    file = f
    var w = JSONWriter()
    w.beginObject()
    w.key("type")
    w.string("recording")
    w.key("version")
    w.int(1)
    w.key("session")
    w.string(session)
    w.key("connection")
    w.int(Int64(serial))
    w.key("rt")
    w.number(rt)
    w.key("gestures")
    w.bool(config.gestures)
    w.key("limits")
    ServerMessage.write(config.limits, &w)
    w.endObject()
    emit(w.bytes)
  }

  func joined(source: String) {
    line { w in
      w.key("joined")
      w.string(source)
    }
  }

  func message(_ bytes: [UInt8], rt: Double) {
    line(rt: rt) { w in
      w.key("in")
      // The driver has checked that every text message is UTF-8 before the core sees it.
      w.string(String(decoding: bytes, as: UTF8.self))
    }
  }

  func timer(deadline: Double, rt: Double) {
    line(rt: rt) { w in
      w.key("timer")
      w.number(deadline)
    }
  }

  func close(peerCode: UInt16?, rt: Double) {
    line(rt: rt) { w in
      w.key("close")
      if let peerCode { w.int(Int64(peerCode)) } else { w.null() }
    }
    if let file { fclose(file) }
    file = nil
  }

  private func line(rt: Double? = nil, _ body: (inout JSONWriter) -> Void) {
    var w = JSONWriter()
    w.beginObject()
    if let rt {
      w.key("rt")
      w.number(rt)
    }
    body(&w)
    w.endObject()
    emit(w.bytes)
  }

  private func emit(_ bytes: [UInt8]) {
    guard let file else { return }
    bytes.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, file) }
    fputc(0x0A, file)
  }

  deinit {
    if let file { fclose(file) }
  }
}

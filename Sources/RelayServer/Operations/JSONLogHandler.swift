import Logging
import Synchronization
import TouchProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// `--log-format json`: one JSON object per line, for log shippers (journald's `MESSAGE`,
/// Vector, Promtail, Fluent Bit) that would otherwise have to take the text format apart.
///
/// `{"time":"2026-01-02T03:04:05.678Z","level":"info","message":"connection open",
/// "logger":"touch-relay","source":"RelayServer","conn":"1","node":"relay-1",...}`: `time`
/// (UTC, milliseconds), `level`, `message`, `logger` (the label) and `source` (the module)
/// first, then every field of the line by name, the ones the text format writes as
/// `name=value`, with the same values. A field named like one of the five is written as
/// `field.NAME`, so no key appears twice.
public struct JSONLogHandler: LogHandler {
  public var logLevel: Logger.Level = .info
  public var metadata: Logger.Metadata = [:]
  public var metadataProvider: Logger.MetadataProvider?
  private let label: String
  private let descriptor: Int32

  /// A handler writing to `descriptor` (standard error, as the text format does, when nil).
  /// Standard error's number is read here, not in a default argument: the module has two
  /// clang modules declaring `STDERR_FILENO`, and a public default must name the one imported.
  public init(
    label: String, descriptor: Int32? = nil,
    metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider
  ) {
    self.label = label
    self.descriptor = descriptor ?? STDERR_FILENO
    self.metadataProvider = metadataProvider
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  public func log(event: LogEvent) {
    // Merged as StreamLogHandler merges them: the handler's, the provider's, the line's.
    var fields = metadata
    if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
    if let explicit = event.metadata { fields.merge(explicit) { $1 } }
    if let error = event.error {
      fields["error.message"] = "\(error)"
      fields["error.type"] = "\(String(reflecting: type(of: error)))"
    }
    let line = Self.line(
      level: "\(event.level)", message: "\(event.message)", logger: label, source: event.source, fields: fields)
    Self.write(line, to: descriptor)
  }

  /// The keys every line starts with; a field of the same name is renamed `field.NAME`.
  public static let fixedKeys = ["time", "level", "message", "logger", "source"]

  /// One line, newline included. `time` defaults to now.
  public static func line(
    time: String = timestamp(), level: String, message: String, logger: String?, source: String?,
    fields: Logger.Metadata = [:]
  ) -> String {
    // TouchProtocol's writer, which every server message is written with: its escaping is
    // the protocol's, checked by its own tests.
    var json = JSONWriter()
    json.beginObject()
    json.key("time")
    json.string(time)
    json.key("level")
    json.string(level)
    json.key("message")
    json.string(message)
    if let logger {
      json.key("logger")
      json.string(logger)
    }
    if let source {
      json.key("source")
      json.string(source)
    }
    for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
      json.key(escaping: fixedKeys.contains(key) ? "field." + key : key)
      write(value, to: &json)
    }
    json.endObject()
    return String(decoding: json.bytes, as: UTF8.self) + "\n"
  }

  /// Now, UTC, as RFC 3339 with milliseconds: `2026-01-02T03:04:05.678Z`.
  public static func timestamp() -> String {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    var seconds = ts.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let millis = Int(ts.tv_nsec / 1_000_000)
    let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
  }

  /// Lines go out whole, one at a time: write(2) alone may split a long line on a pipe, and
  /// another thread's line would land inside it.
  private static let writing = Mutex(())

  /// Writes `text` to `descriptor` whole (retrying short writes), one line at a time.
  public static func write(_ text: String, to descriptor: Int32) {
    writing.withLock { _ in
      var bytes = Array(text.utf8)[...]
      while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        bytes = bytes.dropFirst(n)
      }
    }
  }

  private static func write(_ value: Logger.Metadata.Value, to json: inout JSONWriter) {
    switch value {
    case .string(let s): json.string(s)
    case .stringConvertible(let c): json.string(c.description)
    case .array(let values):
      json.beginArray()
      for v in values { write(v, to: &json) }
      json.endArray()
    case .dictionary(let members):
      json.beginObject()
      for (k, v) in members.sorted(by: { $0.key < $1.key }) {
        json.key(escaping: k)
        write(v, to: &json)
      }
      json.endObject()
    }
  }
}

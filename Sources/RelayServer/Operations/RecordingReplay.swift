import RelayCore
import TouchProtocol

/// Replays a `--record` file offline through the same `RelayCore` the server runs, with the
/// recorded server times, and returns what an observer of the session received (without its
/// `welcome`), one JSON message per element: byte for byte what observers got live.
public enum RecordingReplay {
  public struct Failure: Error, CustomStringConvertible {
    public let line: Int
    public let why: String
    public var description: String { "line \(line): \(why)" }
  }

  /// `raw` includes the `touches` mirror, as for an observer that connected with `?raw=1`.
  public static func replay(_ text: String, raw: Bool = true) throws -> [String] {
    try observed(text, raw: raw).map(\.text)
  }

  /// The same messages, each with the server time (`rt`, ms) of the recorded step that sent
  /// it: when an observer got it live, as far as the server could tell. The replay page
  /// plays them on this clock.
  public static func observed(_ text: String, raw: Bool = true) throws -> [(rt: Double, text: String)] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
    guard let first = lines.first, let header = try? object(first),
      header["type"]?.stringValue == "recording"
    else {
      throw Failure(line: 1, why: "not a touch-relay recording (no header line)")
    }
    guard header["version"]?.intValue == 1 else {
      throw Failure(line: 1, why: "unsupported recording version \(header["version"]?.jsonString ?? "none")")
    }
    var config = RelayCore.Configuration()
    config.gestures = header["gestures"]?.boolValue ?? true
    if let l = header["limits"], l.members != nil {
      config.limits.maxMessageBytes = l["maxMessageBytes"]?.intValue ?? config.limits.maxMessageBytes
      config.limits.maxTouchesPerFrame = l["maxTouchesPerFrame"]?.intValue ?? config.limits.maxTouchesPerFrame
      config.limits.maxFingers = l["maxFingers"]?.intValue ?? config.limits.maxFingers
      config.limits.maxDepth = l["maxDepth"]?.intValue ?? config.limits.maxDepth
      // The rate limit decides which frames reach the engine: replay it as it was live.
      config.limits.maxFramesPerSecond = l["maxFramesPerSecond"]?.intValue ?? config.limits.maxFramesPerSecond
      config.limits.maxControlsPerSecond = l["maxControlsPerSecond"]?.intValue ?? config.limits.maxControlsPerSecond
      config.limits.maxFramesPerMessage = l["maxFramesPerMessage"]?.intValue ?? config.limits.maxFramesPerMessage
    }
    // Each line parsed once, numbered as in the file.
    let records = try lines.enumerated().dropFirst().map {
      (number: $0.offset + 1, record: try object($0.element, $0.offset + 1), text: $0.element)
    }
    config.limits.observerQueue = Int.max / 8
    let session = header["session"]?.stringValue ?? "replay"
    let start = header["rt"]?.doubleValue ?? 0

    config.logLevel = .critical
    let core = RelayCore(configuration: config, at: start)
    let observer = core.open(
      .observer(session: session, filter: ObserverFilter(raw: raw)), address: "replay", at: start)
    _ = core.nextWrite(for: observer)  // its welcome
    let source = core.open(.source(session: session), address: "replay", at: start)
    // One recording is one connection: at most one join, whose id the replay gives the source.
    core.fixedSourceID = records.lazy.compactMap { $0.record["joined"]?.stringValue }.first
    var out: [(rt: Double, text: String)] = []
    var lastRT = start
    // The peers and their session hold each other until closed (as in the server); closing
    // them once the output is taken lets the replay's core go.
    defer {
      core.closed(source, at: lastRT)
      core.closed(observer, at: lastRT)
    }
    for (number, record, line) in records {
      if record["joined"] != nil { continue }
      guard let rt = record["rt"]?.doubleValue else { throw Failure(line: number, why: "no rt") }
      lastRT = rt
      if let message = record["in"]?.stringValue {
        let bytes = Array(message.utf8)
        bytes.withUnsafeBytes { core.receive($0, from: source, at: rt) }
      } else if record["timer"]?.doubleValue != nil {
        // The source's engine deadline fired here: the same frames armed it at the same
        // time in this core, so time reaching `rt` fires it, as it did in the server.
        core.advance(to: rt)
      } else if record["close"] != nil {
        core.peerSentClose(source, code: record["close"]?.intValue.flatMap { UInt16(exactly: $0) })
        core.closed(source, at: rt)
      } else {
        throw Failure(line: number, why: "unknown record \(line.prefix(80))")
      }
      // The driver's actions (writes, pauses, wake-ups) have no socket to act on here.
      core.drainActions { _ in }
      // The observer is read right below; the list of peers with output is let go each step,
      // or it would grow by one entry per recorded message.
      core.drainOutputs { _ in }
      while case .message(let m, _) = core.nextWrite(for: observer) { out.append((rt, m.text)) }
    }
    return out
  }

  private static func object(_ line: Substring, _ number: Int = 1) throws -> JSONValue {
    guard let o = JSONValue(parsing: line), o.members != nil else {
      throw Failure(line: number, why: "not a JSON object")
    }
    return o
  }
}

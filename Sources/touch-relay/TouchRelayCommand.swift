import ArgumentParser
import Logging
import RecordingDrawing
import RelayServer
import TouchProtocol

#if canImport(Glibc)
  import Glibc
#endif
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `touch-relay`: the server's command line. Every flag also reads an environment variable
/// (TOUCH_RELAY_<FLAG>), as twelve-factor services expect; a flag given wins.
@main
struct TouchRelayCommand: ParsableCommand {
  static let version = "0.1.0"

  static let configuration = CommandConfiguration(
    commandName: "touch-relay",
    abstract: "Relay live touches from sources to observers over WebSocket, with gesture recognition.",
    discussion: """
      Sources connect to ws://HOST:PORT/v1/source/{session}, observers to
      ws://HOST:PORT/v1/observe/{session} (subprotocol touchrelay.v1; see protocol/README.md). \
      GET /healthz answers with the server's state. SIGINT or SIGTERM lets observers take \
      their pending messages, closes every connection with 1001 and exits 0.

      Every option can also be set in the environment: --port as TOUCH_RELAY_PORT,
      --max-message-bytes as TOUCH_RELAY_MAX_MESSAGE_BYTES, and so on.
      """,
    version: version
  )

  // One property per row of `RelayOption.all` (ArgumentParser needs them declared), each
  // taken as text and parsed by its row; `given` hands them over by flag. Help, defaults
  // and allowed values all come from the row.
  @Option(help: help("host")) var host: String?
  @Option(help: help("port")) var port: String?
  @Option(help: help("log-level")) var logLevel: String?
  @Option(help: help("log-format")) var logFormat: String?
  @Option(help: help("max-message-bytes")) var maxMessageBytes: String?
  @Option(help: help("max-touches")) var maxTouches: String?
  @Option(help: help("max-fingers")) var maxFingers: String?
  @Option(help: help("observer-queue")) var observerQueue: String?
  @Option(help: help("max-fps")) var maxFps: String?
  @Option(help: help("max-frames-per-message")) var maxFramesPerMessage: String?
  @Option(help: help("max-controls")) var maxControls: String?
  @Option(help: help("max-connections")) var maxConnections: String?
  @Option(help: help("max-connections-per-address")) var maxConnectionsPerAddress: String?
  @Option(help: help("max-sessions")) var maxSessions: String?
  @Option(help: help("max-observers-per-session")) var maxObserversPerSession: String?
  @Option(help: help("source-token")) var sourceToken: String?
  @Option(help: help("observer-token")) var observerToken: String?
  @Option(help: help("tokens")) var tokens: String?
  @Option(help: help("jwt-key")) var jwtKey: [String] = []
  @Option(help: help("jwt-leeway")) var jwtLeeway: String?
  @Option(help: help("jwt-audience")) var jwtAudience: String?
  @Option(help: help("allowed-origin")) var allowedOrigin: [String] = []
  @Option(help: help("cert")) var cert: String?
  @Option(help: help("key")) var key: String?
  @Option(help: help("ping-interval")) var pingInterval: String?
  @Option(help: help("idle-timeout")) var idleTimeout: String?
  @Option(help: help("drain-timeout")) var drainTimeout: String?
  @Flag(inversion: .prefixedNo, help: help("gestures")) var gestures: Bool?
  @Flag(inversion: .prefixedNo, help: help("metrics")) var metrics: Bool?
  @Flag(inversion: .prefixedNo, help: help("compression")) var compression: Bool?
  @Option(help: help("deflate-mem-level")) var deflateMemLevel: String?
  @Option(help: help("write-batch-bytes")) var writeBatchBytes: String?
  @Option(help: help("event-loop")) var eventLoop: String?
  @Option(help: help("record")) var record: String?
  @Option(help: help("public-url")) var publicURL: String?
  @Option(help: help("redis")) var redis: String?
  @Option(help: help("redis-prefix")) var redisPrefix: String?
  @Option(help: help("node-id")) var nodeID: String?
  @Flag(inversion: .prefixedNo, help: help("reuse-port")) var reusePort: Bool?
  @Option(help: help("trusted-proxy")) var trustedProxy: [String] = []
  @Option(help: help("tuio-udp")) var tuioUDP: String?
  @Option(help: help("tuio-session")) var tuioSession: String?
  @Option(help: help("tuio-surface")) var tuioSurface: String?
  @Option(help: help("tuio-max-sources")) var tuioMaxSources: String?
  @Option(help: help("tuio-timeout")) var tuioTimeout: String?
  @Option(help: help("tuio-out")) var tuioOut: [String] = []

  @Option(
    help: ArgumentHelp(
      "Do not serve: replay a --record file through the engine and print, one JSON message per line, what an observer with ?raw=1 received.",
      valueName: "file"))
  var replay: String?

  @Flag(help: "With --replay: leave out the raw `touches` mirror (what an observer without ?raw=1 received).")
  var replayWithoutRaw = false

  @Option(
    help: ArgumentHelp(
      "With --replay: draw the recording as SVG to this file instead of printing (each finger's trail on the surface, the gestures recognized on a timeline).",
      valueName: "file"))
  var svg: String?

  /// The options given on the command line, as text, by their flag in `RelayOption.all`.
  private var given: [String: String?] {
    [
      "host": host, "port": port, "log-level": logLevel, "log-format": logFormat, "max-message-bytes": maxMessageBytes,
      "max-touches": maxTouches, "max-fingers": maxFingers, "observer-queue": observerQueue, "max-fps": maxFps,
      "max-frames-per-message": maxFramesPerMessage,
      "max-controls": maxControls, "max-connections": maxConnections,
      "max-connections-per-address": maxConnectionsPerAddress, "max-sessions": maxSessions,
      "max-observers-per-session": maxObserversPerSession, "source-token": sourceToken,
      "observer-token": observerToken, "tokens": tokens,
      "jwt-key": jwtKey.isEmpty ? nil : jwtKey.joined(separator: ","), "jwt-leeway": jwtLeeway,
      "jwt-audience": jwtAudience,
      "allowed-origin": allowedOrigin.isEmpty ? nil : allowedOrigin.joined(separator: ","), "cert": cert,
      "key": key, "ping-interval": pingInterval, "idle-timeout": idleTimeout, "drain-timeout": drainTimeout,
      "gestures": gestures.map { $0 ? "on" : "off" }, "metrics": metrics.map { $0 ? "on" : "off" },
      "compression": compression.map { $0 ? "on" : "off" }, "deflate-mem-level": deflateMemLevel,
      "write-batch-bytes": writeBatchBytes, "event-loop": eventLoop, "record": record, "public-url": publicURL,
      "redis": redis, "redis-prefix": redisPrefix,
      "node-id": nodeID, "reuse-port": reusePort.map { $0 ? "on" : "off" },
      "trusted-proxy": trustedProxy.isEmpty ? nil : trustedProxy.joined(separator: ","),
      "tuio-udp": tuioUDP, "tuio-session": tuioSession, "tuio-surface": tuioSurface,
      "tuio-max-sources": tuioMaxSources, "tuio-timeout": tuioTimeout,
      "tuio-out": tuioOut.isEmpty ? nil : tuioOut.joined(separator: ","),
    ]
  }

  func validate() throws {
    if svg != nil, replay == nil { throw ValidationError("--svg draws a recording: give it with --replay FILE") }
    _ = try resolved()
  }

  /// Flag, else environment variable, else default, each checked against `RelayOption.all`;
  /// then what only the command line checks: the files it names can be read.
  func resolved() throws -> RelayConfiguration {
    let given = self.given
    // A property without a row, or a row without a property, is a mistake in this file.
    precondition(
      Set(given.keys) == Set(RelayOption.all.map(\.flag)),
      "the command's options differ from RelayOption.all")
    var c: RelayConfiguration
    do {
      c = try RelayOption.configuration(
        flags: given.compactMapValues { $0 }, environment: ProcessInfo.processInfo.environment)
      c.publicURL = try c.publicURL.map(publicBaseURL)
    } catch let e as RelayConfiguration.InvalidValue {
      throw ValidationError(e.description)
    }
    c.verboseLibwebsockets = c.logLevel <= .debug
    for path in [c.tlsCertificate, c.tlsKey, c.tokensFile].compactMap({ $0 }) + c.jwtKeyFiles
    where !FileManager.default.isReadableFile(atPath: path) {
      throw ValidationError("cannot read '\(path)'")
    }
    if let dir = c.recordDirectory {
      guard (try? FileManager.default.attributesOfItem(atPath: dir))?[.type] as? FileAttributeType == .typeDirectory,
        FileManager.default.isWritableFile(atPath: dir)
      else { throw ValidationError("record directory '\(dir)' does not exist or is not writable") }
    }
    return c
  }

  func run() throws {
    if let file = replay { return try runReplay(file) }
    // Blocked before any thread starts, so every thread inherits the mask: the signal thread
    // below takes them with sigwait, which sees a signal only while no thread would take it. A
    // thread started before them (the service thread) took SIGTERM with the disposition
    // SIG_IGN and dropped it: the stop never came.
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stopSignals, sig) }
    pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
    let config = try resolved()
    LoggingSystem.bootstrap { label in
      switch config.logFormat {
      case .text:
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = config.logLevel
        return handler
      case .json:
        var handler = JSONLogHandler(label: label)
        handler.logLevel = config.logLevel
        return handler
      }
    }
    if config.logFormat == .json { LibWebSocketsLog.routeAsJSONLines() }

    let server = RelayServer(configuration: config, logger: Logger(label: "touch-relay"))
    // Signals are turned into a stop or reload request on a thread of their own; the service
    // thread learns of it through lws_cancel_service. A plain thread in sigwait rather than
    // dispatch signal sources, which start libdispatch's manager thread and its event loop in
    // every server (PERFORMANCE.md, "Memory per process"). Ignored as well, in case a thread
    // ever unblocks them.
    for sig in [SIGINT, SIGTERM, SIGHUP] { signal(sig, SIG_IGN) }
    ServiceThread.start(name: "signals") {
      var waitFor = sigset_t()
      sigemptyset(&waitFor)
      for sig in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&waitFor, sig) }
      while true {
        var sig: Int32 = 0
        guard sigwait(&waitFor, &sig) == 0 else { continue }
        if sig == SIGHUP { server.requestReload() } else { server.requestStop() }
      }
    }
    let listeningPort: Int
    do {
      listeningPort = try server.start()
    } catch {
      switch config.logFormat {
      case .text: writeAll("touch-relay: error: \(error)\n", to: STDERR_FILENO)
      case .json:
        JSONLogHandler.write(
          JSONLogHandler.line(level: "critical", message: "\(error)", logger: "touch-relay", source: nil),
          to: STDERR_FILENO)
      }
      throw ExitCode(1)
    }
    if !server.listensOnLoopbackOnly && config.sourceToken == nil && config.observerToken == nil
      && config.tokensFile == nil && config.jwtKeyFiles.isEmpty
    {
      Logger(label: "touch-relay").warning(
        "listening on \(config.host) without tokens: anyone who can reach this address can stream and watch; see --source-token, --observer-token, --tokens, --jwt-key",
        metadata: ["node": "\(config.nodeID)"])
    }
    let url = server.url ?? "ws://\(config.host):\(listeningPort)"
    let scheme = url.hasPrefix("wss:") ? "https" : "http"
    let healthz = "\(scheme)\(url.drop { $0 != ":" })/healthz"
    // What the descriptors allow, so an operator sees the ceiling before a crowd finds it.
    let connections = server.maxConnections ?? config.limits.maxConnections
    let startUp =
      "touch-relay \(Self.version) listening on \(url) (healthz: \(healthz)), up to \(connections) connections, node \(config.nodeID)"
    // On every interface the line above names no address a phone can use: list them.
    let others = server.networkHosts.map { (interface, host) in
      (interface, "\(scheme)://\(host):\(listeningPort)/")
    }
    switch config.logFormat {
    case .text:
      writeAll(
        startUp + "\n" + others.map { "  open on other devices: \($1) (\($0))\n" }.joined(), to: STDOUT_FILENO)
    case .json:
      // The same words in `message` (what reads the text line reads this one's message), the
      // parts as fields too.
      writeAll(
        JSONLogHandler.line(
          level: "notice", message: startUp, logger: "touch-relay", source: nil,
          fields: [
            "url": "\(url)", "healthz": "\(healthz)", "maxConnections": "\(connections)", "node": "\(config.nodeID)",
            "version": "\(Self.version)",
          ])
          + others.map { interface, page in
            JSONLogHandler.line(
              level: "notice", message: "open on other devices: \(page) (\(interface))", logger: "touch-relay",
              source: nil, fields: ["url": "\(page)", "interface": "\(interface)", "node": "\(config.nodeID)"])
          }.joined(), to: STDOUT_FILENO)
    }
    server.wait()
  }
}

extension TouchRelayCommand {
  func runReplay(_ file: String) throws {
    let text: String
    do {
      let bytes = try FileContents.bytes(atPath: file)
      text = String(decoding: bytes, as: UTF8.self)
      guard text.utf8.elementsEqual(bytes) else { throw ValidationError("cannot read '\(file)': it is not UTF-8 text") }
    } catch let e as FileContents.Failure {
      throw ValidationError("cannot read '\(file)': \(e)")
    }
    do {
      if let svg {
        let drawing = try RecordingDrawing.svg(recording: text, replayed: try RecordingReplay.replay(text, raw: true))
        do {
          try FileContents.store(Array(drawing.utf8), atPath: svg)
        } catch {
          throw ValidationError("cannot write '\(svg)': \(error)")
        }
        return
      }
      for line in try RecordingReplay.replay(text, raw: !replayWithoutRaw) {
        print(line)
      }
    } catch let e as RecordingDrawingError {
      throw ValidationError("\(file): \(e)")
    } catch let e as RecordingReplay.Failure {
      throw ValidationError("\(file): \(e)")
    }
  }
}

/// A row's help as `--help` shows it.
private func help(_ flag: String) -> ArgumentHelp {
  guard let option = RelayOption.named(flag) else { preconditionFailure("no option \(flag) in RelayOption.all") }
  return ArgumentHelp(option.fullHelp, valueName: option.valueName)
}

/// All of `text` on `fd`, at once and unbuffered (a pipe reading the start-up line must not wait
/// for a buffer to fill).
private func writeAll(_ text: String, to fd: Int32) {
  var bytes = Array(text.utf8)[...]
  while !bytes.isEmpty {
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    guard n > 0 else { return }
    bytes = bytes.dropFirst(n)
  }
}

import ArgumentParser
import Dispatch
import Foundation
import Logging
import RelayServer
import TouchProtocol

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

  @Option(
    help:
      "Address to listen on: an IP address (0.0.0.0: every IPv4 interface; ::, every interface), a host name (its first IPv4 address, else its first IPv6 one) or an interface name. [env: TOUCH_RELAY_HOST] (default: 127.0.0.1, this machine only)"
  )
  var host: String?

  @Option(help: "Port to listen on; 0 picks a free port and prints it. [env: TOUCH_RELAY_PORT] (default: 8080)")
  var port: Int?

  @Option(
    help:
      "Log level: trace, debug, info, notice, warning, error, critical. [env: TOUCH_RELAY_LOG_LEVEL] (default: info)")
  var logLevel: String?

  @Option(
    help:
      "Largest message in bytes, after decompression (close 1009 beyond). [env: TOUCH_RELAY_MAX_MESSAGE_BYTES] (default: 65536)"
  )
  var maxMessageBytes: Int?

  @Option(help: "Most touches one frame may list. [env: TOUCH_RELAY_MAX_TOUCHES] (default: 20)")
  var maxTouches: Int?

  @Option(help: "Most fingers down at once per source. [env: TOUCH_RELAY_MAX_FINGERS] (default: 10)")
  var maxFingers: Int?

  @Option(
    help:
      "Messages an observer's queue holds before supersedable ones are dropped. [env: TOUCH_RELAY_OBSERVER_QUEUE] (default: 256)"
  )
  var observerQueue: Int?

  @Option(
    help:
      "Frames per second a source may send; the excess gets error rate_limited and is dropped. [env: TOUCH_RELAY_MAX_FPS] (default: 240)"
  )
  var maxFps: Int?

  @Option(
    help:
      "Control messages per second one connection may send; the excess gets error rate_limited and is dropped. [env: TOUCH_RELAY_MAX_CONTROLS] (default: 20)"
  )
  var maxControls: Int?

  @Option(help: "WebSocket connections in total (HTTP 503 beyond). [env: TOUCH_RELAY_MAX_CONNECTIONS] (default: 20000)")
  var maxConnections: Int?

  @Option(
    help:
      "WebSocket connections from one client address (HTTP 503 beyond). [env: TOUCH_RELAY_MAX_CONNECTIONS_PER_ADDRESS] (default: 1000)"
  )
  var maxConnectionsPerAddress: Int?

  @Option(help: "Sessions at once (HTTP 503 for a new one beyond). [env: TOUCH_RELAY_MAX_SESSIONS] (default: 10000)")
  var maxSessions: Int?

  @Option(
    help: "Observers of one session (HTTP 503 beyond). [env: TOUCH_RELAY_MAX_OBSERVERS_PER_SESSION] (default: 2000)")
  var maxObserversPerSession: Int?

  @Option(
    help:
      "Token every source must present (?token= or Authorization: Bearer). [env: TOUCH_RELAY_SOURCE_TOKEN] (default: none)"
  )
  var sourceToken: String?

  @Option(help: "Token every observer must present. [env: TOUCH_RELAY_OBSERVER_TOKEN] (default: none)")
  var observerToken: String?

  @Option(
    help: ArgumentHelp(
      "Per-session tokens, JSON {\"session\": {\"source\": \"t\", \"observer\": [\"a\", \"b\"]}}, re-read on SIGHUP. [env: TOUCH_RELAY_TOKENS]",
      valueName: "file"))
  var tokens: String?

  @Option(
    help:
      "A browser origin allowed to connect (repeatable; env: comma-separated). Default: any. [env: TOUCH_RELAY_ALLOWED_ORIGIN]"
  )
  var allowedOrigin: [String] = []

  @Option(
    help: ArgumentHelp(
      "PEM certificate for TLS (wss://, https://); needs --key. [env: TOUCH_RELAY_CERT]", valueName: "file"))
  var cert: String?

  @Option(help: ArgumentHelp("PEM private key for TLS. [env: TOUCH_RELAY_KEY]", valueName: "file"))
  var key: String?

  @Option(help: "Seconds of silence before a ping. [env: TOUCH_RELAY_PING_INTERVAL] (default: 30)")
  var pingInterval: Int?

  @Option(
    help:
      "Seconds of silence before hanging up (more than --ping-interval). [env: TOUCH_RELAY_IDLE_TIMEOUT] (default: 60)")
  var idleTimeout: Int?

  @Option(
    help: "Seconds observers get on shutdown to take pending messages. [env: TOUCH_RELAY_DRAIN_TIMEOUT] (default: 5)")
  var drainTimeout: Double?

  @Flag(
    inversion: .prefixedNo,
    help: "Run the gesture engine (--no-gestures: raw mirror only). [env: TOUCH_RELAY_GESTURES=0|1] (default: on)")
  var gestures: Bool?

  @Flag(
    inversion: .prefixedNo,
    help: "Serve /metrics and time the engine and deliveries for it. [env: TOUCH_RELAY_METRICS=0|1] (default: on)")
  var metrics: Bool?

  @Flag(inversion: .prefixedNo, help: "Offer permessage-deflate. [env: TOUCH_RELAY_COMPRESSION=0|1] (default: on)")
  var compression: Bool?

  @Option(
    help: ArgumentHelp(
      "zlib memory level (1-9) of each permessage-deflate peer's compressor: its hash table and buffer take 128 KB per peer at 8 (zlib's default), 8 KB at 4, for about the same compression of the relay's small messages. [env: TOUCH_RELAY_DEFLATE_MEM_LEVEL] (default: 4)",
      valueName: "level"))
  var deflateMemLevel: Int?

  @Option(
    help: ArgumentHelp(
      "Bytes of pending messages one send may carry to a peer that did not ask for permessage-deflate; 0 sends one message per send. [env: TOUCH_RELAY_WRITE_BATCH_BYTES] (default: 32768)",
      valueName: "bytes"))
  var writeBatchBytes: Int?

  @Option(
    help: ArgumentHelp(
      "Record every source's input (messages, timer firings, close, with server times) as JSON lines in this directory. [env: TOUCH_RELAY_RECORD]",
      valueName: "dir"))
  var record: String?

  @Option(
    help: ArgumentHelp(
      "Do not serve: replay a --record file through the engine and print, one JSON message per line, what an observer with ?raw=1 received.",
      valueName: "file"))
  var replay: String?

  @Flag(help: "With --replay: leave out the raw `touches` mirror (what an observer without ?raw=1 received).")
  var replayWithoutRaw = false

  @Option(
    help:
      "Event loop: libev (epoll) or poll (libwebsockets' own; scans every socket on each wake-up). [env: TOUCH_RELAY_EVENT_LOOP] (default: libev)"
  )
  var eventLoop: String?

  @Option(
    help: ArgumentHelp(
      "The server's URL as phones reach it, for the pad URL in QR codes (e.g. http://192.168.1.20:8080). [env: TOUCH_RELAY_PUBLIC_URL] (default: the Host the page was loaded from)",
      valueName: "url"))
  var publicURL: String?

  // MARK: Signed tokens (JWT): resolved by `resolveSignedTokens` (TouchRelayCommand+SignedTokens.swift)

  @Option(
    help: ArgumentHelp(
      "Key signed tokens (JWT) are verified with: an HS256 secret (the file's bytes), a PEM public key (ES256, RS256) or a JWKS (keys chosen by kid); repeatable, all in force (rotation); re-read on SIGHUP. [env: TOUCH_RELAY_JWT_KEY, comma-separated] (default: none)",
      valueName: "file"))
  var jwtKey: [String] = []

  @Option(
    help: ArgumentHelp(
      "Seconds a signed token's exp and nbf are stretched by. [env: TOUCH_RELAY_JWT_LEEWAY] (default: 30)",
      valueName: "seconds"))
  var jwtLeeway: Double?

  @Option(
    help: ArgumentHelp(
      "Audience a signed token's aud must name. [env: TOUCH_RELAY_JWT_AUDIENCE] (default: aud not checked)",
      valueName: "aud"))
  var jwtAudience: String?

  func validate() throws {
    _ = try resolved()
  }

  /// Flag, else environment variable, else default; every value range-checked, so a typo in
  /// the environment is an error rather than a silent fallback.
  func resolved() throws -> (RelayConfiguration, Logger.Level) {
    var c = RelayConfiguration()
    // `[::1]` as in a URL is `::1`.
    c.host = try pick(host, "HOST", c.host) {
      let bare = $0.hasPrefix("[") && $0.hasSuffix("]") ? String($0.dropFirst().dropLast()) : $0
      return bare.isEmpty ? nil : bare
    }
    c.port = try pick(port, "PORT", 8080, Int.init)
    let levelName = try pick(logLevel, "LOG_LEVEL", "info") { $0 }
    guard let level = Logger.Level(rawValue: levelName) else {
      throw ValidationError("log level must be one of trace, debug, info, notice, warning, error, critical")
    }
    c.limits.maxMessageBytes = try pick(maxMessageBytes, "MAX_MESSAGE_BYTES", c.limits.maxMessageBytes, Int.init)
    c.limits.maxTouchesPerFrame = try pick(maxTouches, "MAX_TOUCHES", c.limits.maxTouchesPerFrame, Int.init)
    c.limits.maxFingers = try pick(maxFingers, "MAX_FINGERS", c.limits.maxFingers, Int.init)
    c.limits.observerQueue = try pick(observerQueue, "OBSERVER_QUEUE", c.limits.observerQueue, Int.init)
    let ping = try pick(pingInterval, "PING_INTERVAL", Int(c.pingInterval), Int.init)
    let idle = try pick(idleTimeout, "IDLE_TIMEOUT", Int(c.idleTimeout), Int.init)
    c.drainTimeout = try pick(drainTimeout, "DRAIN_TIMEOUT", c.drainTimeout, Double.init)
    c.gestures = try pick(gestures, "GESTURES", true, parseBool)
    c.compression = try pick(compression, "COMPRESSION", true, parseBool)
    c.deflateMemLevel = try pick(deflateMemLevel, "DEFLATE_MEM_LEVEL", c.deflateMemLevel, Int.init)
    c.writeBatchBytes = try pick(writeBatchBytes, "WRITE_BATCH_BYTES", c.writeBatchBytes, Int.init)
    c.metrics = try pick(metrics, "METRICS", true, parseBool)
    c.verboseLibwebsockets = level <= .debug
    let loopName = try pick(eventLoop, "EVENT_LOOP", "libev") { $0 }
    guard let loop = RelayConfiguration.EventLoop(rawValue: loopName) else {
      throw ValidationError("event loop must be poll or libev")
    }
    c.eventLoop = loop
    c.publicURL = try (publicURL ?? ProcessInfo.processInfo.environment["TOUCH_RELAY_PUBLIC_URL"]).map(publicBaseURL)
    c.recordDirectory = record ?? ProcessInfo.processInfo.environment["TOUCH_RELAY_RECORD"]
    let env = ProcessInfo.processInfo.environment
    c.limits.maxFramesPerSecond = try pick(maxFps, "MAX_FPS", c.limits.maxFramesPerSecond, Int.init)
    c.limits.maxControlsPerSecond = try pick(maxControls, "MAX_CONTROLS", c.limits.maxControlsPerSecond, Int.init)
    c.limits.maxConnections = try pick(maxConnections, "MAX_CONNECTIONS", c.limits.maxConnections, Int.init)
    c.limits.maxConnectionsPerAddress = try pick(
      maxConnectionsPerAddress, "MAX_CONNECTIONS_PER_ADDRESS", c.limits.maxConnectionsPerAddress, Int.init)
    c.limits.maxSessions = try pick(maxSessions, "MAX_SESSIONS", c.limits.maxSessions, Int.init)
    c.limits.maxObserversPerSession = try pick(
      maxObserversPerSession, "MAX_OBSERVERS_PER_SESSION", c.limits.maxObserversPerSession, Int.init)
    for (name, value) in [
      ("max fps", c.limits.maxFramesPerSecond), ("max controls", c.limits.maxControlsPerSecond),
      ("max connections", c.limits.maxConnections),
      ("max connections per address", c.limits.maxConnectionsPerAddress), ("max sessions", c.limits.maxSessions),
      ("max observers per session", c.limits.maxObserversPerSession),
    ] where !(1...10_000_000).contains(value) {
      throw ValidationError("\(name) must be from 1 to 10000000")
    }
    c.sourceToken = sourceToken ?? env["TOUCH_RELAY_SOURCE_TOKEN"]
    c.observerToken = observerToken ?? env["TOUCH_RELAY_OBSERVER_TOKEN"]
    for (name, t) in [("source token", c.sourceToken), ("observer token", c.observerToken)] where t?.isEmpty == true {
      throw ValidationError("\(name) must not be empty")
    }
    c.tokensFile = tokens ?? env["TOUCH_RELAY_TOKENS"]
    try resolveSignedTokens(&c)
    let origins =
      allowedOrigin.isEmpty
      ? (env["TOUCH_RELAY_ALLOWED_ORIGIN"]?.split(separator: ",").map {
        String($0).trimmingCharacters(in: .whitespaces)
      } ?? [])
      : allowedOrigin
    c.allowedOrigins = origins.isEmpty ? nil : origins
    c.tlsCertificate = cert ?? env["TOUCH_RELAY_CERT"]
    c.tlsKey = key ?? env["TOUCH_RELAY_KEY"]
    if (c.tlsCertificate == nil) != (c.tlsKey == nil) { throw ValidationError("TLS needs both --cert and --key") }
    for path in [c.tlsCertificate, c.tlsKey, c.tokensFile].compactMap({ $0 })
    where !FileManager.default.isReadableFile(atPath: path) {
      throw ValidationError("cannot read '\(path)'")
    }
    if let dir = c.recordDirectory {
      var isDir: ObjCBool = false
      guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue,
        FileManager.default.isWritableFile(atPath: dir)
      else { throw ValidationError("record directory '\(dir)' does not exist or is not writable") }
    }

    guard (0...65535).contains(c.port) else { throw ValidationError("port must be from 0 to 65535") }
    guard (128...(16 << 20)).contains(c.limits.maxMessageBytes) else {
      throw ValidationError("max message bytes must be from 128 to 16777216")
    }
    guard (0...(16 << 20)).contains(c.writeBatchBytes) else {
      throw ValidationError("write batch bytes must be from 0 to 16777216")
    }
    guard (1...9).contains(c.deflateMemLevel) else { throw ValidationError("deflate mem level must be from 1 to 9") }
    guard (1...1000).contains(c.limits.maxTouchesPerFrame) else {
      throw ValidationError("max touches must be from 1 to 1000")
    }
    guard (1...100).contains(c.limits.maxFingers) else { throw ValidationError("max fingers must be from 1 to 100") }
    guard (1...1_000_000).contains(c.limits.observerQueue) else {
      throw ValidationError("observer queue must be from 1 to 1000000")
    }
    guard (1...3600).contains(ping), (2...7200).contains(idle), idle > ping else {
      throw ValidationError("idle timeout must be greater than ping interval (seconds; ping 1-3600, idle 2-7200)")
    }
    c.pingInterval = UInt16(ping)
    c.idleTimeout = UInt16(idle)
    guard c.drainTimeout >= 0, c.drainTimeout <= 600 else {
      throw ValidationError("drain timeout must be from 0 to 600 seconds")
    }
    return (c, level)
  }

  func run() throws {
    if let file = replay { return try runReplay(file) }
    let (config, level) = try resolved()
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }

    let server = RelayServer(configuration: config, logger: Logger(label: "touch-relay"))
    // Signals are turned into a stop request on a dispatch queue; the service thread
    // learns of it through lws_cancel_service.
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let sources = [SIGINT, SIGTERM].map { sig in
      let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      s.setEventHandler { server.requestStop() }
      s.resume()
      return s
    }
    signal(SIGHUP, SIG_IGN)
    let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
    hangup.setEventHandler { server.requestReload() }
    hangup.resume()
    let listeningPort: Int
    do {
      listeningPort = try server.start()
    } catch {
      FileHandle.standardError.write(Data("touch-relay: error: \(error)\n".utf8))
      throw ExitCode(1)
    }
    if !server.listensOnLoopbackOnly && config.sourceToken == nil && config.observerToken == nil
      && config.tokensFile == nil
    {
      Logger(label: "touch-relay").warning(
        "listening on \(config.host) without tokens: anyone who can reach this address can stream and watch; see --source-token, --observer-token, --tokens"
      )
    }
    let url = server.url ?? "ws://\(config.host):\(listeningPort)"
    let scheme = url.hasPrefix("wss:") ? "https" : "http"
    var lines =
      "touch-relay \(Self.version) listening on \(url) (healthz: \(scheme)\(url.drop { $0 != ":" })/healthz)\n"
    // On every interface the line above names no address a phone can use: list them.
    for (interface, host) in server.networkHosts {
      lines += "  open on other devices: \(scheme)://\(host):\(listeningPort)/ (\(interface))\n"
    }
    FileHandle.standardOutput.write(Data(lines.utf8))
    server.wait()
    withExtendedLifetime((sources, hangup)) {}
  }
}

extension TouchRelayCommand {
  func runReplay(_ file: String) throws {
    let text: String
    do {
      text = try String(contentsOfFile: file, encoding: .utf8)
    } catch {
      throw ValidationError("cannot read '\(file)': \(error.localizedDescription)")
    }
    do {
      for line in try RecordingReplay.replay(text, raw: !replayWithoutRaw) {
        print(line)
      }
    } catch let e as RecordingReplay.Failure {
      throw ValidationError("\(file): \(e)")
    }
  }
}

/// The flag's value if given, else TOUCH_RELAY_<name> parsed, else the default.
private func pick<T>(_ flag: T?, _ name: String, _ fallback: T, _ parse: (String) -> T?) throws -> T {
  if let flag { return flag }
  guard let raw = ProcessInfo.processInfo.environment["TOUCH_RELAY_" + name] else { return fallback }
  guard let value = parse(raw) else {
    throw ValidationError("TOUCH_RELAY_\(name)='\(raw)' is not a valid value")
  }
  return value
}

private func parseBool(_ s: String) -> Bool? {
  switch s.lowercased() {
  case "1", "true", "yes", "on": return true
  case "0", "false", "no", "off": return false
  default: return nil
  }
}

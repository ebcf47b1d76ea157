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
      ws://HOST:PORT/v1/observe/{session} (subprotocol touchrelay.v1; see protocol/README.md).
      GET /healthz answers with the server's state. SIGINT or SIGTERM closes every connection
      with 1001 and exits 0.

      Every option can also be set in the environment: --port as TOUCH_RELAY_PORT,
      --max-message-bytes as TOUCH_RELAY_MAX_MESSAGE_BYTES, and so on.
      """,
    version: version
  )

  @Option(help: "Address to listen on (IP address or interface name). [env: TOUCH_RELAY_HOST]")
  var host: String = env("HOST") ?? "127.0.0.1"

  @Option(help: "Port to listen on; 0 picks a free port and prints it. [env: TOUCH_RELAY_PORT]")
  var port: Int = env("PORT").flatMap(Int.init) ?? 8080

  @Option(
    help: "Log level: trace, debug, info, notice, warning, error, critical. [env: TOUCH_RELAY_LOG_LEVEL]")
  var logLevel: String = env("LOG_LEVEL") ?? "info"

  @Option(help: "Largest message in bytes, after decompression (close 1009 beyond). [env: TOUCH_RELAY_MAX_MESSAGE_BYTES]")
  var maxMessageBytes: Int = env("MAX_MESSAGE_BYTES").flatMap(Int.init) ?? 64 * 1024

  @Option(help: "Most touches one frame may list. [env: TOUCH_RELAY_MAX_TOUCHES]")
  var maxTouches: Int = env("MAX_TOUCHES").flatMap(Int.init) ?? 20

  @Option(help: "Most fingers down at once per source. [env: TOUCH_RELAY_MAX_FINGERS]")
  var maxFingers: Int = env("MAX_FINGERS").flatMap(Int.init) ?? 10

  @Option(help: "Messages an observer's queue holds before supersedable ones are dropped. [env: TOUCH_RELAY_OBSERVER_QUEUE]")
  var observerQueue: Int = env("OBSERVER_QUEUE").flatMap(Int.init) ?? 256

  @Option(help: "Seconds of silence before a ping. [env: TOUCH_RELAY_PING_INTERVAL]")
  var pingInterval: Int = env("PING_INTERVAL").flatMap(Int.init) ?? 30

  @Option(help: "Seconds of silence before hanging up (more than --ping-interval). [env: TOUCH_RELAY_IDLE_TIMEOUT]")
  var idleTimeout: Int = env("IDLE_TIMEOUT").flatMap(Int.init) ?? 60

  @Option(help: "Seconds observers get on shutdown to take pending messages. [env: TOUCH_RELAY_DRAIN_TIMEOUT]")
  var drainTimeout: Double = env("DRAIN_TIMEOUT").flatMap(Double.init) ?? 5

  @Flag(inversion: .prefixedNo, help: "Run the gesture engine (--no-gestures: raw mirror only). [env: TOUCH_RELAY_GESTURES=0|1]")
  var gestures: Bool = env("GESTURES").map { $0 != "0" && $0 != "false" } ?? true

  @Flag(inversion: .prefixedNo, help: "Offer permessage-deflate. [env: TOUCH_RELAY_COMPRESSION=0|1]")
  var compression: Bool = env("COMPRESSION").map { $0 != "0" && $0 != "false" } ?? true

  func validate() throws {
    guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
    }
    guard (128...(16 << 20)).contains(maxMessageBytes) else {
      throw ValidationError("--max-message-bytes must be from 128 to 16777216")
    }
    guard (1...1000).contains(maxTouches) else { throw ValidationError("--max-touches must be from 1 to 1000") }
    guard (1...100).contains(maxFingers) else { throw ValidationError("--max-fingers must be from 1 to 100") }
    guard (1...1_000_000).contains(observerQueue) else {
      throw ValidationError("--observer-queue must be from 1 to 1000000")
    }
    guard (1...3600).contains(pingInterval), (1...7200).contains(idleTimeout), idleTimeout > pingInterval else {
      throw ValidationError("--idle-timeout must be greater than --ping-interval (both in seconds, at least 1)")
    }
    guard drainTimeout >= 0, drainTimeout <= 600 else {
      throw ValidationError("--drain-timeout must be from 0 to 600 seconds")
    }
  }

  func run() throws {
    let level = Logger.Level(rawValue: logLevel) ?? .info
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    var config = RelayConfiguration()
    config.host = host
    config.port = port
    config.limits.maxMessageBytes = maxMessageBytes
    config.limits.maxTouchesPerFrame = maxTouches
    config.limits.maxFingers = maxFingers
    config.limits.observerQueue = observerQueue
    config.pingInterval = UInt16(pingInterval)
    config.idleTimeout = UInt16(idleTimeout)
    config.drainTimeout = drainTimeout
    config.gestures = gestures
    config.compression = compression
    config.verboseLibwebsockets = level <= .debug

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
    let listeningPort: Int
    do {
      listeningPort = try server.start()
    } catch {
      FileHandle.standardError.write(Data("touch-relay: error: \(error)\n".utf8))
      throw ExitCode(1)
    }
    let shownHost = host.contains(":") ? "[\(host)]" : host
    let line = ("touch-relay \(Self.version) listening on ws://\(shownHost):\(listeningPort) (healthz: http://\(shownHost):\(listeningPort)/healthz)\n")
    FileHandle.standardOutput.write(Data(line.utf8))
    server.wait()
    withExtendedLifetime(sources) {}
  }
}

private func env(_ name: String) -> String? {
  ProcessInfo.processInfo.environment["TOUCH_RELAY_" + name]
}

import Logging
import TouchProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Everything the server can be told at start-up. Each default is written here once: the
/// command line's help and the README read them through `RelayOption.all`, whose allowed
/// ranges `validate()` checks (`RelayServer.start()` calls it).
public struct RelayConfiguration: Sendable {
  /// Address to bind: an IP address or an interface name.
  public var host: String = "127.0.0.1"
  /// 0 lets the system pick a free port (read it back from `RelayServer.port`).
  public var port: Int = 8080
  public var limits = Limits()
  /// Run the gesture engine for every source; off, only the raw mirror is relayed.
  public var gestures = true
  /// Seconds of silence before the server pings, and before it hangs up.
  public var pingInterval: UInt16 = 30
  public var idleTimeout: UInt16 = 60
  /// Seconds a source that dropped without a clean close may come back with `hello.resume`.
  public var resumeWindow: Double = 10
  /// Seconds observers get on shutdown to take their pending messages before 1001.
  public var drainTimeout: Double = 5
  /// Offer permessage-deflate.
  public var compression = true
  /// zlib's memLevel for each permessage-deflate peer's compressor (1–9). zlib's default, 8,
  /// costs 128 KB per peer in its hash table and symbol buffer (64 KB of it touched at once);
  /// 4 costs 8 KB, in the same CPU time and with 1 % more bytes on the relay's small messages
  /// (PERFORMANCE.md, "permessage-deflate costs").
  public var deflateMemLevel = 4
  /// Bytes of pending messages one send may carry to a peer without permessage-deflate;
  /// 0 sends one message per writable callback, as with deflate.
  public var writeBatchBytes = 32 * 1024
  /// Errors queued for a source that does not read, beyond which further errors are dropped.
  public var maxPendingErrors = 64
  /// A queue of never-droppable messages longer than this multiple of the queue length closes
  /// the observer (1008): the server cannot keep its promise to a peer that stopped reading.
  public var essentialOverflowFactor = 4

  /// The level the command line sets up logging at (the server logs through the `Logger`
  /// it is given).
  public var logLevel = Logger.Level.info

  /// How the command line writes its log lines (`--log-format`).
  public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's StreamLogHandler: `TIME LEVEL LABEL: name=value ... [MODULE] MESSAGE`.
    case text
    /// One JSON object per line (`JSONLogHandler`), for log shippers.
    case json
  }

  public var logFormat = LogFormat.text

  /// Let libwebsockets log its warnings and notices too (with --log-level debug).
  public var verboseLibwebsockets = false

  /// Write every source's input (messages, timer firings, close) with server times to
  /// JSON-lines files in this directory, for `touch-relay --replay`.
  public var recordDirectory: String?

  /// The loop libwebsockets services its sockets with.
  public enum EventLoop: String, Sendable, CaseIterable {
    /// libwebsockets' own poll(2) loop: every wake-up scans every socket.
    case poll
    /// libev on epoll, through Debian's libwebsockets-evlib-ev plugin, on a loop the server
    /// owns: the default, as epoll does not scan every socket on each wake-up (ARCHITECTURE.md
    /// has what poll cost).
    case libev
  }

  public var eventLoop = EventLoop.libev

  /// Serve `/metrics` and time the engine and deliveries for it (`--no-metrics` measures its cost).
  public var metrics = true

  /// Server-wide shared secrets; nil: that role needs none (unless the tokens file says so).
  public var sourceToken: String?
  public var observerToken: String?
  /// JSON file of per-session tokens, `{"session": {"source": "t", "observer": ["a","b"]}}`;
  /// a session listed there uses its own tokens for the roles it names. Reloaded on SIGHUP.
  public var tokensFile: String?
  /// Browser origins allowed to upgrade (the `Origin` header); nil allows any.
  public var allowedOrigins: [String]?
  /// PEM files for TLS (wss:// and https://); both or neither.
  public var tlsCertificate: String?
  public var tlsKey: String?

  /// The landing page (`/`) lists the live sessions; never while any token is required:
  /// with tokens, session names are not for everyone to see.
  public var listSessions = true

  /// The server's address as phones should reach it (`--public-url`, e.g.
  /// `http://192.168.1.20:8080`): used for the pad URL in QR codes. Nil: the request's Host.
  public var publicURL: String?

  // MARK: Several nodes

  /// This process's name among several (`--node-id`): in its log lines, on `/metrics`
  /// (`touchrelay_node_info`) and in `/healthz`. A cluster bus names its messages with it.
  /// Defaults to `HOSTNAME-PID`, unique on one machine and across machines with distinct names.
  public var nodeID: String = RelayConfiguration.defaultNodeID

  /// Listen on a socket of the server's own with `SO_REUSEPORT` (`--reuse-port`), so several
  /// processes on one machine share the port; see `SharedListener`.
  public var reusePort = false

  /// `--trusted-proxy`: addresses or CIDR networks of proxies whose `X-Forwarded-For` names
  /// the client, for the per-address limit and the logs (see `TrustedProxies`).
  public var trustedProxies: [String] = []

  /// `HOSTNAME-PID` (see `NodeID.machineDefault`).
  public static let defaultNodeID = NodeID.machineDefault()

  // MARK: Signed tokens (JWT)

  /// `--jwt-key`: files of keys signed tokens are verified with (an HS256 secret, a PEM public
  /// key, a JWK or a JWKS), all in force at once for rotation. Re-read on SIGHUP.
  public var jwtKeyFiles: [String] = []
  /// Seconds a signed token's `exp` and `nbf` are stretched by.
  public var jwtLeeway: Double = 30
  /// When set, a signed token's `aud` must be (or list) it.
  public var jwtAudience: String?

  // MARK: Cluster

  /// `--redis`: the Redis a cluster's nodes share (`redis://[:PASSWORD@]HOST:PORT`); unset, the
  /// relay is one process and talks to no Redis.
  public var redisURL: String?
  /// `--redis-prefix`: in front of every channel name, so clusters sharing a Redis stay apart.
  public var redisPrefix: String?
  /// The prefix in force.
  public var effectiveRedisPrefix: String { redisPrefix ?? "touchrelay" }
  // MARK: TUIO (docs/tuio.md)

  /// `--tuio-udp [HOST:]PORT`: the UDP address TUIO senders send to; nil: no TUIO input.
  public var tuioUDP: String?
  /// The session TUIO senders are sources of.
  public var tuioSession = "tuio"
  /// The surface (points) normalized TUIO positions are scaled to, unless TUIO 2.0 gives `dim`.
  public var tuioSurface = (width: 1920.0, height: 1080.0)
  /// TUIO senders followed at once (UDP carries no token: this bounds what spoofed ones cost).
  public var tuioMaxSources = 64
  /// Seconds of silence after which a TUIO sender has left.
  public var tuioTimeout: Double = 3
  /// `--tuio-out SESSION=HOST:PORT`, each: the session's touches and gestures as TUIO over UDP.
  public var tuioOut: [String] = []

  public init() {}

  /// A value outside what its option allows, or settings that contradict each other.
  public struct InvalidValue: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
      self.description = description
    }
  }

  /// Checks every setting against the range `RelayOption.all` allows, and the settings that
  /// depend on each other; throws `InvalidValue` naming the first one wrong.
  public func validate() throws {
    // Each network on its own, to say which one is wrong and why.
    for proxy in trustedProxies {
      do {
        _ = try IPNetwork(proxy)
      } catch {
        throw InvalidValue("trusted proxy \(error)")
      }
    }
    if let url = redisURL {
      // Says why, where the option's range only says what.
      do {
        _ = try RedisURL(url)
      } catch {
        throw InvalidValue("redis: \(error)")
      }
    }
    for option in RelayOption.all {
      if let problem = option.problem(in: self) { throw InvalidValue(problem) }
    }
    guard idleTimeout > pingInterval else {
      throw InvalidValue("idle-timeout (\(idleTimeout)) must be greater than ping-interval (\(pingInterval))")
    }
    guard (tlsCertificate == nil) == (tlsKey == nil) else {
      throw InvalidValue("TLS needs both a certificate (cert) and a key (key)")
    }
  }
}

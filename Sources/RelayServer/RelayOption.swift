import Logging
import TouchProtocol

/// One setting of `RelayConfiguration` as the outside world names it: its flag, its
/// environment variable, the values it allows and its help. `RelayOption.all` is the one
/// table the command line, its `--help`, `RelayConfiguration.validate()` and the README's
/// configuration table are made from (a test holds the README to it). Defaults are not
/// written here: each is read from a fresh `RelayConfiguration`, where it is written once.
public struct RelayOption: Sendable {
  /// Without the dashes: `max-fps`. A switch is also `--no-<flag>`.
  public let flag: String
  /// What the value is, for `--help`; nil for an on/off switch.
  public let valueName: String?
  /// The values allowed, as they end "... must be": `from 1 to 100`, `one of poll, libev`;
  /// empty: any.
  public let allowed: String
  public let help: String
  /// How `defaultValue` reads when the setting is unset (nil) by default.
  private let unsetText: String
  private let read: @Sendable (RelayConfiguration) -> String?
  /// Sets the value from text; false when the text is not a value of this kind at all.
  private let parse: @Sendable (inout RelayConfiguration, String) -> Bool
  /// Whether the value set is one of those `allowed`.
  private let check: @Sendable (RelayConfiguration) -> Bool

  /// `TOUCH_RELAY_MAX_FPS` for `max-fps`.
  public var environment: String {
    "TOUCH_RELAY_" + String(flag.uppercased().map { $0 == "-" ? "_" : $0 })
  }

  public var isSwitch: Bool { valueName == nil }

  /// The value a fresh `RelayConfiguration` has, as text.
  public var defaultValue: String { value(in: RelayConfiguration()) }

  /// This option's value in `configuration`, as text.
  public func value(in configuration: RelayConfiguration) -> String {
    read(configuration) ?? unsetText
  }

  /// The help `--help` shows: what it does, its variable, default and allowed values.
  public var fullHelp: String {
    "\(help) [env: \(environment)] (default: \(defaultValue)\(allowed.isEmpty ? "" : "; \(allowed)"))"
  }

  /// Sets this option in `configuration` from its text (a flag's value or the variable's).
  public func set(_ text: String, in configuration: inout RelayConfiguration) throws {
    guard parse(&configuration, text) else {
      throw RelayConfiguration.InvalidValue("--\(flag)='\(text)' is not a valid value (\(allowedOrAny))")
    }
  }

  /// Why the value in `configuration` is not allowed; nil when it is.
  public func problem(in configuration: RelayConfiguration) -> String? {
    check(configuration)
      ? nil
      : "\(flag.split(separator: "-").joined(separator: " ")) must be \(allowed) (it is \(value(in: configuration)))"
  }

  private var allowedOrAny: String { allowed.isEmpty ? "any" : allowed }

  public static func named(_ flag: String) -> RelayOption? {
    all.first { $0.flag == flag }
  }

  /// A configuration from flags (by `flag`, already given as text) and the environment: a
  /// flag wins over its variable, and either one set to a value not allowed is an error,
  /// never a silent default.
  public static func configuration(flags: [String: String], environment: [String: String]) throws
    -> RelayConfiguration
  {
    var c = RelayConfiguration()
    for option in all {
      guard let text = flags[option.flag] ?? environment[option.environment] else { continue }
      do {
        try option.set(text, in: &c)
      } catch is RelayConfiguration.InvalidValue where flags[option.flag] == nil {
        throw RelayConfiguration.InvalidValue(
          "\(option.environment)='\(text)' is not a valid value (\(option.allowedOrAny))")
      }
    }
    try c.validate()
    return c
  }

  // MARK: The table

  public static let all: [RelayOption] = [
    RelayOption(
      flag: "host", valueName: "address", allowed: "not empty",
      help:
        "Address to listen on: an IP address (127.0.0.1: this machine only; 0.0.0.0: every IPv4 interface, to let phones on your network in; ::, every interface), a host name or an interface name",
      unsetText: "", read: { $0.host },
      parse: { c, s in
        // `[::1]` as in a URL is `::1`.
        let bare = s.hasPrefix("[") && s.hasSuffix("]") ? String(s.dropFirst().dropLast()) : s
        c.host = bare
        return !bare.isEmpty
      },
      check: { !$0.host.isEmpty }),
    integer("port", \.port, 0...65535, "Port to listen on; 0 picks a free port and prints it"),
    choice(
      "log-level", \.logLevel,
      "Log level (info: one line per connection opened and closed, nothing per frame)"),
    choice(
      "log-format", \.logFormat,
      "Log line format: text (name=value fields) or json (one JSON object per line: time, level, message and the fields; docs/deployment.md)"),
    integer(
      "max-message-bytes", \.limits.maxMessageBytes, 128...(16 << 20),
      "Largest message in bytes, after decompression (close 1009 beyond)", valueName: "bytes"),
    integer("max-touches", \.limits.maxTouchesPerFrame, 1...1000, "Most touches one frame may list"),
    integer("max-fingers", \.limits.maxFingers, 1...100, "Most fingers down at once per source"),
    integer(
      "observer-queue", \.limits.observerQueue, 1...1_000_000,
      "Messages an observer's queue holds before supersedable ones are dropped"),
    integer(
      "max-fps", \.limits.maxFramesPerSecond, 1...10_000_000,
      "Frames per second a source may send; the excess gets error rate_limited and is dropped"),
    integer(
      "max-frames-per-message", \.limits.maxFramesPerMessage, 1...1000,
      "Most samples one frames message may carry (error too_many_frames beyond)"),
    integer(
      "max-controls", \.limits.maxControlsPerSecond, 1...10_000_000,
      "Control messages per second one connection may send; the excess gets error rate_limited"),
    integer(
      "max-connections", \.limits.maxConnections, 1...10_000_000,
      "WebSocket connections in total (HTTP 503 beyond); fewer if the descriptor limit allows fewer"),
    integer(
      "max-connections-per-address", \.limits.maxConnectionsPerAddress, 1...10_000_000,
      "WebSocket connections from one client address (HTTP 503 beyond)"),
    integer("max-sessions", \.limits.maxSessions, 1...10_000_000, "Sessions at once (HTTP 503 for a new one beyond)"),
    integer(
      "max-observers-per-session", \.limits.maxObserversPerSession, 1...10_000_000,
      "Observers of one session (HTTP 503 beyond)"),
    text(
      "source-token", \.sourceToken, "Token every source must present (?token= or Authorization: Bearer)",
      valueName: "token", unset: "none", nonEmpty: true),
    text(
      "observer-token", \.observerToken, "Token every observer must present", valueName: "token", unset: "none",
      nonEmpty: true),
    text(
      "tokens", \.tokensFile,
      "Per-session tokens: a JSON file {\"session\": {\"source\": \"t\", \"observer\": [\"a\"]}}, re-read on SIGHUP",
      valueName: "file", unset: "none"),
    RelayOption(
      flag: "jwt-key", valueName: "file", allowed: "",
      help:
        "Key signed tokens (JWT) are verified with: an HS256 secret (the file's bytes), a PEM public key (ES256, RS256) or a JWK/JWKS (keys chosen by kid); repeat the flag (or comma-separated) for rotation; re-read on SIGHUP",
      unsetText: "none", read: { $0.jwtKeyFiles.isEmpty ? nil : $0.jwtKeyFiles.joined(separator: ",") },
      parse: { c, s in
        c.jwtKeyFiles = s.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
        return true
      },
      check: { _ in true }),
    seconds("jwt-leeway", \.jwtLeeway, 0...3600, "Seconds a signed token's exp and nbf are stretched by (clock skew)"),
    text(
      "jwt-audience", \.jwtAudience, "Audience a signed token's aud must name", valueName: "aud",
      unset: "aud not checked", nonEmpty: true),
    RelayOption(
      flag: "allowed-origin", valueName: "origin", allowed: "",
      help: "Browser origins allowed to connect (repeat the flag, or comma-separated)",
      unsetText: "any", read: { $0.allowedOrigins?.joined(separator: ",") },
      parse: { c, s in
        let list = s.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
        c.allowedOrigins = list.isEmpty ? nil : list
        return true
      },
      check: { _ in true }),
    text(
      "cert", \.tlsCertificate, "PEM certificate for TLS (wss://, https://); needs --key", valueName: "file",
      unset: "no TLS"),
    text("key", \.tlsKey, "PEM private key for TLS; needs --cert", valueName: "file", unset: "no TLS"),
    integer("ping-interval", \.pingInterval, 1...3600, "Seconds of silence before a ping", valueName: "seconds"),
    integer(
      "idle-timeout", \.idleTimeout, 2...7200, "Seconds of silence before hanging up (more than --ping-interval)",
      valueName: "seconds"),
    seconds(
      "drain-timeout", \.drainTimeout, 0...600, "Seconds observers get on shutdown to take their pending messages"),
    toggle("gestures", \.gestures, "Run the gesture engine (--no-gestures: the raw mirror only)"),
    toggle("metrics", \.metrics, "Serve /metrics and time the engine and deliveries for it"),
    toggle("compression", \.compression, "Offer permessage-deflate"),
    integer(
      "deflate-mem-level", \.deflateMemLevel, 1...9,
      "zlib memory level of each permessage-deflate peer's compressor (PERFORMANCE.md: its cost per peer)",
      valueName: "level"),
    integer(
      "write-batch-bytes", \.writeBatchBytes, 0...(16 << 20),
      "Bytes of pending messages one send may carry to a peer without permessage-deflate; 0: one message per send",
      valueName: "bytes"),
    choice("event-loop", \.eventLoop, "Event loop: libev (epoll) or poll (libwebsockets' own)"),
    text(
      "record", \.recordDirectory,
      "Record every source's input with server times as JSON lines in this directory (for --replay)",
      valueName: "dir", unset: "off"),
    text(
      "public-url", \.publicURL, "The server's URL as phones reach it, for the pad URL in QR codes",
      valueName: "url", unset: "the page's Host"),
    text(
      "redis", \.redisURL,
      "Make this process a node of a cluster sharing sessions through this Redis (docs/deployment.md)",
      valueName: "url", unset: "none: one process", allowed: "redis://[:PASSWORD@]HOST[:PORT]",
      isValid: { (try? RedisURL($0)) != nil }),
    text(
      "redis-prefix", \.redisPrefix, "Prefix of every Redis channel, so clusters sharing one Redis stay apart",
      valueName: "name", unset: "touchrelay", allowed: NodeID.allowed, isValid: NodeID.isValid),
    RelayOption(
      flag: "node-id", valueName: "name", allowed: NodeID.allowed,
      help: "This process's name among several nodes: in its source ids with --redis, its log lines, /metrics (touchrelay_node_info) and /healthz",
      unsetText: "HOSTNAME-PID", read: { $0.nodeID == RelayConfiguration.defaultNodeID ? nil : $0.nodeID },
      parse: { c, s in
        c.nodeID = s
        return true
      },
      check: { NodeID.isValid($0.nodeID) }),
    toggle(
      "reuse-port", \.reusePort,
      "Listen with SO_REUSEPORT, so several processes on this machine share --port and the kernel spreads connections over them"),
    RelayOption(
      flag: "trusted-proxy", valueName: "cidr", allowed: "IPv4 or IPv6 addresses or CIDRs",
      help:
        "Proxy or load balancer whose X-Forwarded-For names the client, for the per-address limit and the logs (repeat the flag, or comma-separated)",
      unsetText: "none", read: { $0.trustedProxies.isEmpty ? nil : $0.trustedProxies.joined(separator: ",") },
      parse: { c, s in
        c.trustedProxies = s.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
        return true
      },
      check: { $0.trustedProxies.allSatisfy { (try? IPNetwork($0)) != nil } }),
    text(
      "tuio-udp", \.tuioUDP,
      "Listen for TUIO 1.1 and 2.0 senders on this UDP port (HOST:PORT, [V6]:PORT or PORT on --host's address); trusted networks only (docs/tuio.md)",
      valueName: "[host:]port", unset: "off", nonEmpty: true),
    RelayOption(
      flag: "tuio-session", valueName: "name", allowed: "a session name ([A-Za-z0-9_-]{1,64})",
      help: "Session TUIO senders are sources of", unsetText: "", read: { $0.tuioSession },
      parse: { c, s in
        c.tuioSession = s
        return true
      },
      check: { SessionName.isValid($0.tuioSession) }),
    RelayOption(
      flag: "tuio-surface", valueName: "WxH", allowed: "WIDTHxHEIGHT in points, each from 1 to 100000",
      help: "Surface TUIO's normalized positions are scaled to (unless a TUIO 2.0 sender gives its dim)",
      unsetText: "", read: { "\($0.tuioSurface.width.formatted)x\($0.tuioSurface.height.formatted)" },
      parse: { c, s in
        let parts = s.split(separator: "x")
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]) else { return false }
        c.tuioSurface = (w, h)
        return true
      },
      check: { (1...100_000).contains($0.tuioSurface.width) && (1...100_000).contains($0.tuioSurface.height) }),
    integer(
      "tuio-max-sources", \.tuioMaxSources, 1...10_000,
      "TUIO senders followed at once; datagrams from further ones are dropped and counted"),
    seconds("tuio-timeout", \.tuioTimeout, 0.1...3600, "Seconds of silence after which a TUIO sender has left"),
    RelayOption(
      flag: "tuio-out", valueName: "session=host:port", allowed: "",
      help:
        "Send a session's touches as TUIO 1.1 /tuio/2Dcur bundles and its gestures as /touchrelay/gesture over UDP to HOST:PORT (repeat the flag, or comma-separated)",
      unsetText: "none", read: { $0.tuioOut.isEmpty ? nil : $0.tuioOut.joined(separator: ",") },
      parse: { c, s in
        c.tuioOut = s.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
        return true
      },
      check: { _ in true }),
  ]

  // MARK: Kinds of option

  /// A number of seconds, fractions allowed.
  private static func seconds(
    _ flag: String, _ path: WritableKeyPath<RelayConfiguration, Double> & Sendable, _ range: ClosedRange<Double>,
    _ help: String
  ) -> RelayOption {
    RelayOption(
      flag: flag, valueName: "seconds", allowed: "from \(range.lowerBound.formatted) to \(range.upperBound.formatted)",
      help: help, unsetText: "", read: { $0[keyPath: path].formatted },
      parse: { c, s in
        guard let v = Double(s), v.isFinite else { return false }
        c[keyPath: path] = v
        return true
      },
      check: { range.contains($0[keyPath: path]) })
  }

  private static func integer<V: FixedWidthInteger & Sendable>(
    _ flag: String, _ path: WritableKeyPath<RelayConfiguration, V> & Sendable, _ range: ClosedRange<V>,
    _ help: String, valueName: String = "n"
  ) -> RelayOption {
    RelayOption(
      flag: flag, valueName: valueName, allowed: "from \(range.lowerBound) to \(range.upperBound)", help: help,
      unsetText: "", read: { "\($0[keyPath: path])" },
      parse: { c, s in
        guard let v = V(s) else { return false }
        c[keyPath: path] = v
        return true
      },
      check: { range.contains($0[keyPath: path]) })
  }

  private static func toggle(
    _ flag: String, _ path: WritableKeyPath<RelayConfiguration, Bool> & Sendable, _ help: String
  ) -> RelayOption {
    RelayOption(
      flag: flag, valueName: nil, allowed: "on or off", help: help, unsetText: "",
      read: { $0[keyPath: path] ? "on" : "off" },
      parse: { c, s in
        switch s.lowercased() {
        case "1", "true", "yes", "on": c[keyPath: path] = true
        case "0", "false", "no", "off": c[keyPath: path] = false
        default: return false
        }
        return true
      },
      check: { _ in true })
  }

  private static func text(
    _ flag: String, _ path: WritableKeyPath<RelayConfiguration, String?> & Sendable, _ help: String,
    valueName: String, unset: String, nonEmpty: Bool = false
  ) -> RelayOption {
    RelayOption(
      flag: flag, valueName: valueName, allowed: nonEmpty ? "not empty" : "", help: help, unsetText: unset,
      read: { $0[keyPath: path] },
      parse: { c, s in
        c[keyPath: path] = s
        return true
      },
      check: { !nonEmpty || $0[keyPath: path]?.isEmpty != true })
  }

  /// Text that must pass `isValid`, described by `allowed`.
  private static func text(
    _ flag: String, _ path: WritableKeyPath<RelayConfiguration, String?> & Sendable, _ help: String,
    valueName: String, unset: String, allowed: String, isValid: @escaping @Sendable (String) -> Bool
  ) -> RelayOption {
    RelayOption(
      flag: flag, valueName: valueName, allowed: allowed, help: help, unsetText: unset,
      read: { $0[keyPath: path] },
      parse: { c, s in
        c[keyPath: path] = s
        return true
      },
      check: { $0[keyPath: path].map(isValid) ?? true })
  }

  private static func choice<V: RawRepresentable<String> & CaseIterable & Sendable>(
    _ flag: String, _ path: WritableKeyPath<RelayConfiguration, V> & Sendable, _ help: String
  ) -> RelayOption {
    RelayOption(
      flag: flag, valueName: "name", allowed: "one of " + V.allCases.map(\.rawValue).joined(separator: ", "),
      help: help,
      unsetText: "", read: { $0[keyPath: path].rawValue },
      parse: { c, s in
        guard let v = V(rawValue: s) else { return false }
        c[keyPath: path] = v
        return true
      },
      check: { _ in true })
  }
}

extension Double {
  /// `5` for 5.0, `0.5` for 0.5: a setting in seconds as people write it.
  fileprivate var formatted: String {
    self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
  }
}

extension String {
  /// Without the spaces around it (`a, b` lists origins `a` and `b`).
  fileprivate var trimmed: String {
    var s = Substring(self)
    while s.first == " " { s = s.dropFirst() }
    while s.last == " " { s = s.dropLast() }
    return String(s)
  }
}

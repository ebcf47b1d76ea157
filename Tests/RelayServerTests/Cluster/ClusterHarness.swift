import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

#if canImport(Glibc)
  import Glibc
#endif

/// A real `redis-server` on a free loopback port, persistence off, owned by one test. Starting
/// it, and `redis-cli`, wait on child processes: they do it on a thread of their own
/// (`onOwnThread`), not on the pool every other test needs meanwhile.
final class TestRedis: @unchecked Sendable {
  let port: Int
  /// The address it listens on (`--bind`).
  let host: String
  /// Its `requirepass`, if it has one.
  let password: String?
  private var process: Process?

  /// `started: false` picks the port and leaves it closed until `start()`: a Redis that is
  /// down when the nodes start.
  init(password: String? = nil, started: Bool = true, host: String = "127.0.0.1") async throws {
    port = try freeLoopbackPort()
    self.host = host
    self.password = password
    if started { try await start() }
  }

  /// Its URL, with its password if it has one.
  var url: String { url(password: password) }

  /// Its URL with `password` (none: nil), whatever its own is.
  func url(password: String?) -> String {
    "redis://\(password.map { ":\($0)@" } ?? "")\(host.contains(":") ? "[\(host)]" : host):\(port)"
  }

  func start() async throws {
    try await onOwnThread { try self.startWaiting() }
  }

  private func startWaiting() throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
    p.arguments =
      [
        "--port", "\(port)", "--bind", host, "--save", "", "--appendonly", "no", "--loglevel", "warning",
      ] + (password.map { ["--requirepass", $0] } ?? [])
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try ChildProcess.run(p)
    process = p
    // Ready once it answers.
    guard eventuallyOnThisThread(timeout: TestTime.seconds(10), { (try? cliWaiting(["PING"])) == "PONG" }) else {
      throw TestRedisError.notReady
    }
  }

  /// How many connections are subscribed to `channel` (`PUBSUB NUMSUB`).
  func subscribers(of channel: String) async throws -> Int {
    let said = try await cli(["PUBSUB", "NUMSUB", channel]).split(separator: "\n")
    return said.count == 2 ? Int(said[1]) ?? 0 : 0
  }

  /// SIGKILL: the Redis dies without a word.
  func kill() {
    guard let p = process else { return }
    Glibc.kill(p.processIdentifier, SIGKILL)
    p.waitUntilExit()
    process = nil
  }

  func pause() { process.map { _ = Glibc.kill($0.processIdentifier, SIGSTOP) } }
  func resume() { process.map { _ = Glibc.kill($0.processIdentifier, SIGCONT) } }

  /// Runs `redis-cli` against it and returns what it printed, trimmed.
  @discardableResult
  func cli(_ args: [String]) async throws -> String {
    try await onOwnThread { try self.cliWaiting(args) }
  }

  private func cliWaiting(_ args: [String]) throws -> String {
    let auth = password.map { ["-a", $0, "--no-auth-warning"] } ?? []
    let (_, output) = try runToolWaiting("/usr/bin/redis-cli", ["-h", host, "-p", "\(port)"] + auth + args)
    return output.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  deinit {
    if let p = process {
      Glibc.kill(p.processIdentifier, SIGCONT)
      Glibc.kill(p.processIdentifier, SIGKILL)
      p.waitUntilExit()
    }
  }
}

enum TestRedisError: Error {
  case notReady
  case noLogFile
}

/// A port nothing listens on now (the kernel's choice for port 0).
func freeLoopbackPort() throws -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var addr = sockaddr_in()
  addr.sin_family = sa_family_t(AF_INET)
  addr.sin_addr.s_addr = inet_addr("127.0.0.1")
  addr.sin_port = 0
  var len = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &addr) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
  }
  guard bound else { throw TestRedisError.notReady }
  return Int(UInt16(bigEndian: addr.sin_port))
}

/// One `touch-relay` process, a node of a cluster. Its `deinit` kills it, as `TestRedis`'s
/// kills the Redis: a test keeps both to its end with `defer { withExtendedLifetime(x) {} }`,
/// since an optimized (release) build ends an object's life at its last use, which stopped
/// nodes while their observers were still reading.
final class TestNode: @unchecked Sendable {
  let name: String
  let port: Int
  /// `HOST:PORT` as its start-up line gives it (`[::1]:PORT` on IPv6).
  let address: String
  let process: Process
  private let output: Pipe

  /// `redisURL` instead of `redis.url` (a wrong password, none); `log` takes its log lines at
  /// `logLevel` (else they go to the tests' stderr, errors only).
  init(
    _ name: String, redis: TestRedis, redisURL: String? = nil, extra: [String] = [], log: NodeLog? = nil,
    logLevel: String = "error"
  ) async throws {
    self.name = name
    // The server suite's event loop (TOUCH_RELAY_TEST_EVENT_LOOP) for the nodes too.
    let loop = ProcessInfo.processInfo.environment["TOUCH_RELAY_TEST_EVENT_LOOP"].map { ["--event-loop", $0] } ?? []
    let args =
      ["--port", "0", "--log-level", logLevel, "--redis", redisURL ?? redis.url, "--node-id", name]
      + ["--redis-prefix", "test"] + loop + extra
    let handle = log?.handle
    let (p, line, out) = try await onOwnThread { try ShutdownTests.startForLine(args, stderr: handle) }
    let url = ShutdownTests.url(in: line)
    let port = url.split(separator: ":").last.flatMap { Int($0) }
    process = p
    self.port = try #require(port, "no port in start-up line '\(line)'")
    address = String(url.dropFirst("ws://".count))
    output = out
  }

  func url(_ path: String) -> String { "ws://\(address)\(path)" }

  func health() async throws -> JSONValue {
    try JSONValue.parse(try await HTTPClient.get("http://\(address)/healthz").text)
  }

  func metrics() async throws -> String {
    try await HTTPClient.get("http://\(address)/metrics").text
  }

  /// The nodes this one has heard, and whether its bus is up.
  func clusterView() async throws -> (up: Bool, nodes: Set<String>) {
    let cluster = try await health()["cluster"]
    let nodes = cluster?["nodes"]?.arrayValue?.compactMap(\.stringValue) ?? []
    return (cluster?["bus"]?.stringValue == "up", Set(nodes))
  }

  /// Waits until `/healthz` says the bus is up (`up`) or down; whether it did within `timeout`.
  func waitForBus(
    up: Bool, timeout: Duration = TestTime.seconds(10), sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Bool {
    try await eventually(
      "\(name)'s /healthz says its bus is \(up ? "up" : "down")", timeout: timeout, sourceLocation: sourceLocation
    ) {
      try await clusterView().up == up
    }
  }

  /// How many sources of other nodes `/healthz` says this node knows.
  func remoteSources() async throws -> Int {
    try await health()["cluster"]?["remoteSources"]?.intValue ?? 0
  }

  /// Waits until this node has heard of `count` sources of other nodes (they reach it over the
  /// bus a moment after they join theirs).
  func waitForRemoteSources(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    var listed = 0
    try await eventually(
      "\(name)'s /healthz lists \(count) sources of other nodes (it lists \(listed))", sourceLocation: sourceLocation
    ) {
      listed = try await remoteSources()
      return listed == count
    }
  }

  /// An observer of `session` whose welcome lists `source`: this node has heard of it (a
  /// node learns other nodes' sources from the bus, a moment after they join).
  func observer(
    _ session: String, query: String = "", seeing source: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> (WebSocketConnection, JSONValue) {
    var last: (WebSocketConnection, JSONValue)?
    let seen = try await eventually(
      "\(name) lists \(source) in a welcome to \(session): \(last.map { "\($0.1)" } ?? "")", sourceLocation: sourceLocation
    ) {
      if let (ws, _) = last { await ws.close() }
      let (ws, welcome) = try await observer(session, query: query)
      last = (ws, welcome)
      let ids = welcome["sources"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
      return ids.contains(source)
    }
    guard seen, let last else { throw WebSocketClientError.timeout("\(name) never listed \(source)") }
    return last
  }

  func source(
    _ session: String, hello: String = #"{"type":"hello","device":{"name":"Phone","width":400,"height":800}}"#
  ) async throws -> (WebSocketConnection, String) {
    let ws = try await WebSocketConnection.connect(url("/v1/source/\(session)"))
    try await ws.send(text: hello)
    let welcome = try await ws.nextJSON(type: "welcome")
    return (ws, try #require(welcome["source"]?.stringValue))
  }

  func observer(_ session: String, query: String = "") async throws -> (WebSocketConnection, JSONValue) {
    let ws = try await WebSocketConnection.connect(url("/v1/observe/\(session)\(query.isEmpty ? "" : "?" + query)"))
    return (ws, try await ws.nextJSON(type: "welcome"))
  }

  func signal(_ s: Int32) { Glibc.kill(process.processIdentifier, s) }

  func kill() {
    signal(SIGKILL)
    process.waitUntilExit()
  }

  deinit {
    if process.isRunning {
      Glibc.kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }
}

/// A node's log lines, in a file of their own (a pipe nobody reads would fill and stall the
/// node), read while it runs.
final class NodeLog: @unchecked Sendable {
  let path: String
  let handle: FileHandle

  init() throws {
    path = FileManager.default.temporaryDirectory.appendingPathComponent("touch-relay-node-\(UUID().uuidString).log").path
    guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
      throw TestRedisError.noLogFile
    }
    handle = h
  }

  /// Everything written so far. Read through a FileHandle: FoundationEssentials'
  /// `String(contentsOfFile:)` leaks its 4 kB buffer on a file that is still empty (LeakSanitizer,
  /// in the cluster suites' ASan pass), which a node's log is until it writes.
  var text: String {
    guard let reading = FileHandle(forReadingAtPath: path) else { return "" }
    defer { try? reading.close() }
    return String(decoding: (try? reading.readToEnd()) ?? Data(), as: UTF8.self)
  }

  /// The lines written so far that contain `needle`.
  func lines(containing needle: String) -> [Substring] {
    text.split(separator: "\n").filter { $0.contains(needle) }
  }

  /// Waits until a line contains `needle` (or `timeout` passes); those lines.
  func waitFor(
    _ needle: String, timeout: Duration = TestTime.seconds(10), sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> [Substring] {
    try await eventually("a node logs '\(needle)'", timeout: timeout, sourceLocation: sourceLocation) {
      let found = lines(containing: needle)
      return found.isEmpty ? nil : found
    } ?? []
  }

  deinit {
    try? handle.close()
    try? FileManager.default.removeItem(atPath: path)
  }
}

/// Nodes on one Redis, each having heard all the others.
func startCluster(_ names: [String], redis: TestRedis) async throws -> [TestNode] {
  var nodes: [TestNode] = []
  for name in names { nodes.append(try await TestNode(name, redis: redis)) }
  try await waitUntilMeshed(nodes, redis: redis)
  return nodes
}

/// Waits until every node's bus is up, it has heard every other node, and every other node
/// has subscribed to its data channel (Redis counts them): from then on what a node
/// publishes reaches all the others.
func waitUntilMeshed(_ nodes: [TestNode], redis: TestRedis, timeout: Duration = TestTime.seconds(20)) async throws {
  let names = Set(nodes.map(\.name))
  try await eventually("the nodes \(names.sorted()) hear each other", timeout: timeout) {
    for n in nodes {
      let view = try await n.clusterView()
      guard view.up, names.subtracting([n.name]).isSubset(of: view.nodes) else { return false }
    }
    return true
  }
  try await waitUntilSubscribed(to: nodes.map(\.name), count: nodes.count - 1, redis: redis)
}

/// Waits until `count` connections are subscribed to each of `nodes`' data channels.
func waitUntilSubscribed(to nodes: [String], count: Int, redis: TestRedis) async throws {
  for name in nodes {
    try await eventually("\(count) nodes subscribe to \(name)'s data channel") {
      try await redis.subscribers(of: "test:node:\(name)") >= count
    }
  }
}

extension WebSocketConnection {
  /// Every text message as JSON, for `window`.
  func jsonFor(_ window: Duration) async throws -> [JSONValue] {
    try await receiveAll(for: window).compactMap { $0.text }.map { try JSONValue.parse($0) }
  }

  /// Messages (as JSON) until one satisfies `done` or `timeout` passes; all of them, in order.
  func collect(until done: (JSONValue) -> Bool, timeout: Duration = TestTime.seconds(10)) async throws -> [JSONValue] {
    var out: [JSONValue] = []
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      let left = deadline - ContinuousClock.now
      guard case .text(let text) = try await next(timeout: left) else { continue }
      let v = try JSONValue.parse(text)
      out.append(v)
      if done(v) { return out }
    }
    return out
  }
}

extension JSONValue {
  var type: String? { self["type"]?.stringValue }
}

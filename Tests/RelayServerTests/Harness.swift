import Foundation
import Logging
import RelayServer
import Synchronization
import Testing
import TouchProtocol
import TouchRelayClient

/// How long the tests wait for the server, stretched by `TOUCH_RELAY_TEST_TIME_SCALE` (a whole
/// number, default 1): `tools/sanitize/run` sets it, as a sanitizer build serves several times
/// more slowly. Only waits for an answer use it; a wait that is itself the check does not.
enum TestTime {
  static let scale =
    ProcessInfo.processInfo.environment["TOUCH_RELAY_TEST_TIME_SCALE"].flatMap { Int($0) }.map {
      max(1, $0)
    } ?? 1

  static func seconds(_ s: Int) -> Duration { .seconds(s * scale) }
}

/// A real server on a free loopback port, in this process, stopped with `stop()`.
final class TestRelay: Sendable {
  let server: RelayServer
  let port: Int

  init(_ configure: (inout RelayConfiguration) -> Void = { _ in }) throws {
    var config = RelayConfiguration()
    config.host = "127.0.0.1"
    config.port = 0
    config.drainTimeout = 1
    // The whole suite can run on either event loop: TOUCH_RELAY_TEST_EVENT_LOOP=poll|libev.
    if let name = ProcessInfo.processInfo.environment["TOUCH_RELAY_TEST_EVENT_LOOP"],
      let loop = RelayConfiguration.EventLoop(rawValue: name)
    {
      config.eventLoop = loop
    }
    configure(&config)
    var logger = Logger(label: "test-relay")
    logger.logLevel = .error
    server = RelayServer(configuration: config, logger: logger)
    port = try server.start()
  }

  /// Asks the server to stop and returns at once. Tests run on Swift's cooperative pool (two
  /// threads here): waiting there for a drain would stall every other test's timers with it.
  func stop() { server.requestStop() }

  /// Stops the server and waits, on a thread of its own, until it has finished.
  func stopAndWait() async {
    server.requestStop()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      Thread { [server] in
        server.wait()
        done.resume()
      }.start()
    }
  }

  var base: String { "ws://127.0.0.1:\(port)" }

  func url(_ path: String) -> String { base + path }

  /// A source that has said hello and got its welcome; returns its id too.
  func source(
    _ session: String, name: String = "Test phone", hello: String? = nil,
    configuration: WebSocketConfiguration = .init(), token: String? = nil
  ) async throws -> (WebSocketConnection, String) {
    let query = token.map { "?token=\($0)" } ?? ""
    let ws = try await WebSocketConnection.connect(url("/v1/source/\(session)\(query)"), configuration: configuration)
    try await ws.send(
      text: hello ?? #"{"type":"hello","device":{"name":"\#(name)","width":400,"height":800}}"#)
    let welcome = try await ws.nextJSON(type: "welcome")
    let id = try #require(welcome["source"]?.stringValue)
    return (ws, id)
  }

  /// An observer connected and past its welcome, which is returned.
  func observer(
    _ session: String, query: String = "", configuration: WebSocketConfiguration = .init()
  ) async throws -> (WebSocketConnection, JSONValue) {
    let q = query.isEmpty ? "" : "?" + query
    let ws = try await WebSocketConnection.connect(url("/v1/observe/\(session)\(q)"), configuration: configuration)
    let welcome = try await ws.nextJSON(type: "welcome")
    return (ws, welcome)
  }

  /// What an upgrade to `url` got: 101 once open (then closed), else the refusal's HTTP status
  /// and body (nil and why when there was no HTTP answer).
  func upgradeStatus(_ url: String, headers: [(String, String)] = []) async -> (Int?, String) {
    await RelayServerTests.upgradeStatus(url, headers: headers)
  }

  func health() async throws -> JSONValue {
    let r = try await HTTPClient.get("http://127.0.0.1:\(port)/healthz")
    #expect(r.status == 200)
    return try JSONValue.parse(r.text)
  }
}

/// One series' value in a `/metrics` text (`name` or `name{labels}`), if it is there.
func metricValue(_ text: String, _ series: String) -> Double? {
  for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
    return Double(line.split(separator: " ").last ?? "")
  }
  return nil
}

/// A peer's `rate_limited` errors, and how many frames or controls they say were dropped.
struct RateLimitedReports {
  var errors = 0
  var dropped = 0

  mutating func add(_ messages: [Received]) throws {
    for m in messages {
      guard let text = m.text, text.contains("rate_limited") else { continue }
      errors += 1
      let said = try JSONValue.parse(text)["message"]?.stringValue ?? ""
      if let n = said.split(separator: ";").last?.split(separator: " ").first.flatMap({ Int($0) }) { dropped += n }
    }
  }
}

/// After a rate-limited burst of `total` frames from `source`, quiet since (so the last
/// refusals are reported within a window of them): counts the frames `watcher` got mirrored and the ones `source`
/// was told were dropped until every frame is accounted for (on a busy machine the answers
/// come late), then a little longer for anything extra.
func accountForFrames(
  _ total: Int, mirroredTo watcher: WebSocketConnection, reportedTo source: WebSocketConnection,
  mirrored: inout Int, reports: inout RateLimitedReports
) async throws {
  let deadline = ContinuousClock.now + TestTime.seconds(5)
  repeat {
    try reports.add(try await source.receiveAll(for: .milliseconds(100)))
    mirrored += try await watcher.touchesReceived(for: .milliseconds(100))
  } while mirrored + reports.dropped < total && ContinuousClock.now < deadline
  try reports.add(try await source.receiveAll(for: .milliseconds(200)))
  mirrored += try await watcher.touchesReceived(for: .milliseconds(100))
}

/// A frame as JSON text; touches are (id, phase, x, y).
func frameText(_ seq: Int, t: Double, _ touches: [(Int, String, Double, Double)]) -> String {
  let list = touches.map { #"{"id":\#($0.0),"phase":"\#($0.1)","x":\#($0.2),"y":\#($0.3)}"# }
  return #"{"type":"frame","seq":\#(seq),"t":\#(t),"touches":[\#(list.joined(separator: ","))]}"#
}

extension WebSocketConnection {
  /// How many `touches` messages arrive within `window`.
  func touchesReceived(for window: Duration) async throws -> Int {
    try await receiveAll(for: window).filter { $0.text?.contains(#""type":"touches""#) == true }.count
  }

  /// The next `error` message's code.
  func nextErrorCode(timeout: Duration = .seconds(5)) async throws -> String? {
    try await nextJSON(type: "error", timeout: timeout)["code"]?.stringValue
  }

  /// Closes without a close frame, as a dropped network would.
  func drop() async throws {
    try await channel.close()
  }
}

/// What an upgrade to `url` got, from a server this process does not hold (a child
/// `touch-relay`): 101 once open (then closed), else the refusal's HTTP status and body.
func upgradeStatus(_ url: String, headers: [(String, String)] = []) async -> (Int?, String) {
  var c = WebSocketConfiguration()
  c.headers = headers
  do {
    let ws = try await WebSocketConnection.connect(url, configuration: c)
    await ws.close()
    return (101, "")
  } catch let e as WebSocketClientError {
    if case .upgradeRefused(let r) = e { return (r.status, r.text) }
    return (nil, "\(e)")
  } catch {
    return (nil, "\(error)")
  }
}

/// The real `touch-relay` binary in a child process, as an operator runs it, with its log read
/// as it comes: a test sends it signals (`kill`) and waits for what it logs in answer.
final class RelayProcess: Sendable {
  let process: Process
  let port: Int
  private let log = Mutex("")

  /// Starts `touch-relay --port 0 --log-level notice ARGUMENTS` and reads its start-up line.
  init(_ arguments: [String]) async throws {
    let errors = ChildProcess.pipe()
    let (p, port, _) = try await ShutdownTests.launch(arguments + ["--log-level", "notice"], errors: errors)
    process = p
    self.port = port
    let handle = errors.fileHandleForReading
    Thread { [self] in
      while true {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        log.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
      }
    }.start()
  }

  func url(_ path: String) -> String { "ws://127.0.0.1:\(port)\(path)" }

  /// Everything it has logged so far.
  var logged: String { log.withLock { $0 } }

  /// How many times `text` occurs in its log so far.
  func occurrences(of text: String) -> Int { logged.components(separatedBy: text).count - 1 }

  /// Sends it `signal` and waits until its log has one more line containing `answer` than
  /// before; false if none came within 10 s (scaled).
  func signal(_ signal: Int32, answeredBy answer: String) async throws -> Bool {
    let before = occurrences(of: answer)
    kill(process.processIdentifier, signal)
    return try await eventually("touch-relay logs '\(answer)' after signal \(signal)") {
      occurrences(of: answer) > before
    }
  }

  /// SIGTERM, and reaped (`terminate`).
  func stop() { terminate(process) }
}

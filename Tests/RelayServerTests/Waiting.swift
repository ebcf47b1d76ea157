import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// The suite's one way to wait for the server: poll what a user or an operator could look at
/// (a message, `/healthz`, `/metrics`, a log line, Redis, a process) until it shows what the
/// test waits for. A long deadline costs nothing when the condition comes true early, so the
/// deadlines are generous: a sanitizer build on two busy cores is several times slower.
enum Waiting {
  /// How often a condition is looked at again.
  static let interval: Duration = .milliseconds(20)
}

/// Polls `probe` until it gives a value; that value, or nil once `timeout` (scaled with the
/// rest of the suite's waits) has passed. The closure runs in the caller's isolation (an actor
/// polls its own state).
func poll<T>(
  timeout: Duration = TestTime.seconds(10), isolation: isolated (any Actor)? = #isolation,
  _ probe: () async throws -> T?
) async throws -> T? {
  let deadline = ContinuousClock.now + timeout
  while true {
    if let value = try await probe() { return value }
    guard ContinuousClock.now < deadline else { return nil }
    try await Task.sleep(for: Waiting.interval)
  }
}

/// `poll`, and if `probe` gave nothing within `timeout` the test fails, saying that `what`
/// did not come true.
@discardableResult
func eventually<T>(
  _ what: @autoclosure () -> String, timeout: Duration = TestTime.seconds(10),
  isolation: isolated (any Actor)? = #isolation, sourceLocation: SourceLocation = #_sourceLocation,
  _ probe: () async throws -> T?
) async throws -> T? {
  if let value = try await poll(timeout: timeout, probe) { return value }
  Issue.record("still not so after \(timeout): \(what())", sourceLocation: sourceLocation)
  return nil
}

/// Polls `condition` until it holds; whether it did within `timeout` (if not, the test fails,
/// saying that `what` did not come true).
@discardableResult
func eventually(
  _ what: @autoclosure () -> String, timeout: Duration = TestTime.seconds(10),
  isolation: isolated (any Actor)? = #isolation, sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () async throws -> Bool
) async throws -> Bool {
  try await eventually(what(), timeout: timeout, sourceLocation: sourceLocation) {
    try await condition() ? true : nil
  } ?? false
}

/// `eventually` for code that already runs on a thread of its own and waits there (starting
/// Redis, reaping a child process): no failure recorded, the caller says what went wrong.
func eventuallyOnThisThread(timeout: Duration, _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = ContinuousClock.now + timeout
  while true {
    if try condition() { return true }
    guard ContinuousClock.now < deadline else { return false }
    let (s, atto) = Waiting.interval.components
    Thread.sleep(forTimeInterval: Double(s) + Double(atto) / 1e18)
  }
}

extension WebSocketConnection {
  /// Everything that arrives (as JSON) before the answer to a message the server answers at
  /// once (`error unknown_type`), the answer left out. The server sends a peer's messages in
  /// order, so by then it has sent this peer all it had for it: a test that something does
  /// not arrive waits for this marker, not for a while.
  func jsonUntilCaughtUp(timeout: Duration = TestTime.seconds(10)) async throws -> [JSONValue] {
    try await send(text: #"{"type":"caught-up?"}"#)
    let got = try await collect(
      until: { $0.type == "error" && $0["code"]?.stringValue == "unknown_type" }, timeout: timeout)
    #expect(got.last?.type == "error", "no answer to a message of an unknown type within \(timeout): \(got)")
    return got.filter { !($0.type == "error" && $0["code"]?.stringValue == "unknown_type") }
  }
}

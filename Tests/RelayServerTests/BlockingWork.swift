import Foundation
import Testing

/// Blocking work (a child process, a wait for one) on a thread of its own. Tests run on Swift's
/// cooperative pool, as many threads as cores (two here): holding one while openssl makes a key
/// or a Python client talks to a server stalls every other test's reads and timers meanwhile,
/// and the tests that check timing fail for it.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { done in
    Thread { done.resume(with: Result { try work() }) }.start()
  }
}

/// Runs `tool` to its end, off the pool: its exit status and everything it printed.
func runTool(_ tool: String, _ args: [String]) async throws -> (Int32, String) {
  try await onOwnThread {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}

/// Stops a child server the way an operator would, SIGTERM, and reaps it. One still running
/// `seconds` later (scaled by TOUCH_RELAY_TEST_TIME_SCALE) fails the test and is killed: a
/// lost SIGTERM must show as a failure, not as a suite that never ends.
func terminate(_ p: Process, within seconds: Int = 10) {
  if p.isRunning {
    p.terminate()
    let deadline = ContinuousClock.now + TestTime.seconds(seconds)
    while p.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
    if p.isRunning {
      Issue.record("touch-relay (pid \(p.processIdentifier)) was still running \(seconds) s after SIGTERM: killed")
      kill(p.processIdentifier, SIGKILL)
    }
  }
  // Returns at once now, and lets Foundation let go of the process.
  p.waitUntilExit()
}

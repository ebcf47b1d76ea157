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

/// How every child process of the tests is started: its pipes made, and `run()` called, under
/// one lock. Foundation's `Process.run()` on Linux lists the descriptors open at that moment and
/// closes them in the child; one made by another thread between that list and the spawn is
/// inherited. Children are started from many tests at once, so a pipe of one child (or the
/// socket through which Foundation learns that it exited) could live on in another, long-lived
/// child: the first child's reader then never saw end-of-file, nor its `waitUntilExit` the exit,
/// while the second lived, and with both of the pool's threads waiting so, the suite hung.
enum ChildProcess {
  private static let lock = NSLock()

  static func pipe() -> Pipe { lock.withLock { Pipe() } }

  static func run(_ p: Process) throws { try lock.withLock { try p.run() } }
}

/// Runs `tool` to its end, off the pool (`environment` added to this process's): its exit
/// status and everything it printed.
func runTool(_ tool: String, _ args: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
  try await onOwnThread { try runToolWaiting(tool, args, environment: environment) }
}

/// `runTool` on the calling thread, for work that is on a thread of its own already.
func runToolWaiting(_ tool: String, _ args: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: tool)
  p.arguments = args
  if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
  let out = ChildProcess.pipe()
  p.standardOutput = out
  p.standardError = out
  try ChildProcess.run(p)
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Stops a child server the way an operator would, SIGTERM, and reaps it. One still running
/// `seconds` later (scaled by TOUCH_RELAY_TEST_TIME_SCALE) fails the test and is killed: a
/// lost SIGTERM must show as a failure, not as a suite that never ends.
func terminate(_ p: Process, within seconds: Int = 10) {
  if p.isRunning {
    p.terminate()
    if !eventuallyOnThisThread(timeout: TestTime.seconds(seconds), { !p.isRunning }) {
      Issue.record("touch-relay (pid \(p.processIdentifier)) was still running \(seconds) s after SIGTERM: killed")
      kill(p.processIdentifier, SIGKILL)
    }
  }
  // Returns at once now, and lets Foundation let go of the process.
  p.waitUntilExit()
}

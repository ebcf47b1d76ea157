import Foundation
import Testing

/// The core promises the same bytes for the same events. Swift seeds its hashing anew in every
/// process, so an order taken from a `Dictionary` or `Set` is the same all through one process
/// and differs in the next: only the same script run in two processes shows such an order.
/// This test runs `OrderScript` (and `ClusterOrderScript`) in two child processes (this test
/// binary, asked for `runsTheScriptForItsParent` or `runsTheClusterScriptForItsParent` alone)
/// and compares what they wrote.
@Suite struct OutputOrderAcrossProcessesTests {
  /// Where a child writes its transcript; set only for the children.
  static let outputVariable = "TOUCH_RELAY_ORDER_SCRIPT_OUT"

  @Test func theSameEventsGiveTheSameBytesInAnotherProcess() async throws {
    let runs = try await Self.twoRuns(of: "runsTheScriptForItsParent")
    // Something came out: every session's observers got its sources' `left`.
    let left = runs[0].split(separator: "\n").filter { $0.contains(#""event":"left""#) }.count
    #expect(left == OrderScript.sessions * OrderScript.sourcesPerSession * OrderScript.observersPerSession)
    #expect(runs[0].contains("kill "), "the drain cut no one: \(runs[0].suffix(500))")
    Self.expectSame(runs)
  }

  /// The same for cluster nodes: several nodes lost at once, sync answers and the end of one
  /// over several sessions, a node's goodbye (`ClusterOrderScript`).
  @Test func theSameClusterEventsGiveTheSameBytesInAnotherProcess() async throws {
    let runs = try await Self.twoRuns(of: "runsTheClusterScriptForItsParent")
    let lines = runs[0].split(separator: "\n")
    // Something came out of every part: A's observers got every remote source's `left`, A lost
    // the three silent nodes, cancelled pans, and G was answered with departed sources.
    let messages = lines.filter { $0.hasPrefix("  ") }
    #expect(messages.filter { $0.contains(#""event":"left""#) }.count == ClusterOrderScript.leftMessagesExpected)
    #expect(lines.filter { $0.hasPrefix("A log warning cluster node lost") }.count == ClusterOrderScript.silentNodes.count)
    #expect(lines.contains { $0.contains(#""state":"cancelled""#) })
    #expect(lines.filter { $0.hasPrefix("A unsubscribe ") }.count == ClusterOrderScript.silentNodes.count + 1)
    Self.expectSame(runs)
  }

  /// The child's side: writes the script's transcript where its parent asked. Runs only in a
  /// child (and is reported as skipped otherwise).
  @Test(.enabled(if: ProcessInfo.processInfo.environment[outputVariable] != nil, "runs only as a child of theSameEventsGiveTheSameBytesInAnotherProcess"))
  func runsTheScriptForItsParent() throws {
    let path = try #require(ProcessInfo.processInfo.environment[Self.outputVariable])
    try OrderScript.transcript().write(toFile: path, atomically: true, encoding: .utf8)
  }

  @Test(.enabled(if: ProcessInfo.processInfo.environment[outputVariable] != nil, "runs only as a child of theSameClusterEventsGiveTheSameBytesInAnotherProcess"))
  func runsTheClusterScriptForItsParent() throws {
    let path = try #require(ProcessInfo.processInfo.environment[Self.outputVariable])
    try ClusterOrderScript.transcript().write(toFile: path, atomically: true, encoding: .utf8)
  }

  /// The transcripts of two children, each running the child test `test` alone. They are waited
  /// for on a thread of their own: a test that blocks one of the pool's threads (two, on two
  /// cores) for seconds stalls every other test meanwhile, past their waits.
  static func twoRuns(of test: String) async throws -> [String] {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("order-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var runs: [String] = []
    for n in 1...2 {
      let file = dir.appendingPathComponent("run-\(n).txt")
      let (status, printed) = try await withCheckedThrowingContinuation { done in
        Thread { done.resume(with: Result { try runChild(test, writingTo: file) }) }.start()
      }
      #expect(status == 0, "child \(n): \(printed)")
      runs.append(try String(contentsOf: file, encoding: .utf8))
    }
    return runs
  }

  /// The two transcripts are the same, or the first line where they part is reported.
  static func expectSame(_ runs: [String]) {
    guard runs[0] != runs[1] else { return }
    let a = runs[0].split(separator: "\n", omittingEmptySubsequences: false)
    let b = runs[1].split(separator: "\n", omittingEmptySubsequences: false)
    let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    // A bus message is one long line: where it parts is what tells.
    func from(_ line: Substring?) -> String {
      guard let line else { return "" }
      guard first < a.count, first < b.count else { return String(line.prefix(240)) }
      let common = zip(a[first], b[first]).prefix { $0.0 == $0.1 }.count
      return String(line.dropFirst(max(0, common - 80)).prefix(240))
    }
    Issue.record(
      "the two processes' outputs differ from line \(first + 1): '\(from(a.dropFirst(first).first))' / '\(from(b.dropFirst(first).first))'"
    )
  }

  /// This test binary again, running the child test `test` alone. Without
  /// SWIFT_DETERMINISTIC_HASHING, which would give both children the same seed and hide the
  /// very difference looked for.
  static func runChild(_ test: String, writingTo file: URL) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    p.arguments = ["--testing-library", "swift-testing", "--filter", "OutputOrderAcrossProcessesTests/\(test)"]
    var environment = ProcessInfo.processInfo.environment
    environment["SWIFT_DETERMINISTIC_HASHING"] = nil
    environment[outputVariable] = file.path
    p.environment = environment
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let printed = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: printed, as: UTF8.self))
  }
}

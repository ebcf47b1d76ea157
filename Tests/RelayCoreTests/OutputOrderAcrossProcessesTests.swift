import Foundation
import Testing

/// The core promises the same bytes for the same events. Swift seeds its hashing anew in every
/// process, so an order taken from a `Dictionary` or `Set` is the same all through one process
/// and differs in the next: only the same script run in two processes shows such an order.
/// This test runs `OrderScript` in two child processes (this test binary, asked for
/// `runsTheScriptForItsParent` alone) and compares what they wrote.
@Suite struct OutputOrderAcrossProcessesTests {
  /// Where a child writes its transcript; set only for the children.
  static let outputVariable = "TOUCH_RELAY_ORDER_SCRIPT_OUT"

  @Test func theSameEventsGiveTheSameBytesInAnotherProcess() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("order-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let runs = try (1...2).map { n -> String in
      let file = dir.appendingPathComponent("run-\(n).txt")
      let (status, printed) = try Self.runChild(writingTo: file)
      #expect(status == 0, "child \(n): \(printed)")
      return try String(contentsOf: file, encoding: .utf8)
    }
    // Something came out: every session's observers got its sources' `left`.
    let left = runs[0].split(separator: "\n").filter { $0.contains(#""event":"left""#) }.count
    #expect(left == OrderScript.sessions * OrderScript.sourcesPerSession * OrderScript.observersPerSession)
    #expect(runs[0].contains("kill "), "the drain cut no one: \(runs[0].suffix(500))")
    if runs[0] != runs[1] {
      let a = runs[0].split(separator: "\n", omittingEmptySubsequences: false)
      let b = runs[1].split(separator: "\n", omittingEmptySubsequences: false)
      let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
      Issue.record(
        "the two processes' outputs differ from line \(first + 1): '\(a.dropFirst(first).first ?? "")' / '\(b.dropFirst(first).first ?? "")'"
      )
    }
  }

  /// The child's side: writes the script's transcript where its parent asked. Runs only in a
  /// child (and is reported as skipped otherwise).
  @Test(.enabled(if: ProcessInfo.processInfo.environment[outputVariable] != nil, "runs only as a child of theSameEventsGiveTheSameBytesInAnotherProcess"))
  func runsTheScriptForItsParent() throws {
    let path = try #require(ProcessInfo.processInfo.environment[Self.outputVariable])
    try OrderScript.transcript().write(toFile: path, atomically: true, encoding: .utf8)
  }

  /// This test binary again, running `runsTheScriptForItsParent` alone. Without
  /// SWIFT_DETERMINISTIC_HASHING, which would give both children the same seed and hide the
  /// very difference looked for.
  static func runChild(writingTo file: URL) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    p.arguments = ["--testing-library", "swift-testing", "--filter", "OutputOrderAcrossProcessesTests/runsTheScriptForItsParent"]
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

import Foundation
import Logging
import RelayServer
import Testing
import TouchProtocol

@testable import touch_load

/// A short touch-load run against a real relay in this process: the report it gives is what
/// `--json` and `--html` write.
enum LoadRunAgainstRelay {
  /// 3 s by default: the sources connect once the run has begun, and on a loaded machine (the
  /// suite's first seconds, everything starting at once) a 1.5 s run once ended before any did,
  /// so nothing was timed.
  static func run(
    sources: Int, observers: Int = 1, duration: Double = 3, observerToken: String? = nil,
    samplesPerMessage: Int = 1
  ) async throws -> Report {
    var config = RelayConfiguration()
    config.host = "127.0.0.1"
    config.port = 0
    config.drainTimeout = 1
    config.observerToken = observerToken
    var logger = Logger(label: "touch-load-tests")
    logger.logLevel = .critical
    let server = RelayServer(configuration: config, logger: logger)
    let port = try server.start()
    defer { server.requestStop() }
    // Stretched under the sanitizers (TOUCH_RELAY_TEST_TIME_SCALE, as the server tests' waits):
    // connecting alone can take longer there than a short run lasts, and it then sends nothing.
    let scale = ProcessInfo.processInfo.environment["TOUCH_RELAY_TEST_TIME_SCALE"].flatMap { Double($0) }.map {
      max(1, $0)
    } ?? 1
    let plan = Plan(
      baseURL: "ws://127.0.0.1:\(port)", sources: sources, rate: 60, duration: duration * scale, rampUp: 0, warmup: 0.3,
      drain: 0.4, sessions: 1, observersPerSession: observers, raw: true, observerQuery: nil,
      sessionPrefix: "pages", trace: .generated(.mixed), sendIdle: true, samplesPerMessage: samplesPerMessage,
      device: Device(name: "test", width: 412, height: 915), seed: 7, threads: 1, tick: 0.001,
      maxSendLag: 0.05, connectConcurrency: 8, connectTimeout: 5, subprotocol: true, progressInterval: 1)
    let run = try await LoadRun(plan: plan)
    let (report, _) = await run.run(progress: ProgressPrinter(enabled: false, clock: run.clock))
    return report
  }

  /// The report as a user reads its JSON file: a plain JSON object.
  static func json(_ report: Report) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
  }
}

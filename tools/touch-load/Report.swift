import Foundation
import Histogram

/// Latency percentiles in milliseconds.
struct LatencySummary: Codable, Sendable {
  var count: UInt64
  var p50: Double
  var p90: Double
  var p99: Double
  var p999: Double
  /// Absent from reports written before it was added.
  var p9999: Double?
  var max: Double
  var mean: Double

  init(_ h: Histogram<UInt64>) {
    count = h.totalCount
    func ms(_ us: UInt64) -> Double { (Double(us) / 1000 * 1000).rounded() / 1000 }
    p50 = count == 0 ? 0 : ms(h.valueAtPercentile(50))
    p90 = count == 0 ? 0 : ms(h.valueAtPercentile(90))
    p99 = count == 0 ? 0 : ms(h.valueAtPercentile(99))
    p999 = count == 0 ? 0 : ms(h.valueAtPercentile(99.9))
    p9999 = count == 0 ? 0 : ms(h.valueAtPercentile(99.99))
    max = count == 0 ? 0 : ms(h.max)
    mean = count == 0 ? 0 : (h.mean / 1000 * 1000).rounded() / 1000
  }

  var line: String {
    count == 0
      ? "no samples"
      : String(
        format: "p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f ms  (mean %.3f, n=%llu)", p50,
        p90, p99, p999,
        max, mean, count)
  }
}

struct ConnectionSummary: Codable, Sendable {
  var attempted = 0
  var connected = 0
  var failed = 0
  var failures: [String: Int] = [:]
  /// The full text of the first error of each kind in `failures`.
  var firstMessages: [String: String]? = [:]
}

/// One line of the per-second series.
struct SecondReport: Codable, Sendable {
  var second: Int
  var framesSent: Int
  var messagesReceived: Int
  var droppedNotices: Int
  var droppedMessages: Int
  var errors: Int
  var latencyP50: Double
  var latencyP99: Double
  var latencyMax: Double
}

/// The full result of a run (`--json`).
struct Report: Codable, Sendable {
  struct Config: Codable, Sendable {
    var url: String
    var sources: Int
    var rate: Double
    var duration: Double
    var rampUp: Double
    var warmup: Double
    var sessions: Int
    var observersPerSession: Int
    var raw: Bool
    var scenario: String
    var sendIdle: Bool
    var threads: Int
    var seed: UInt64
    /// Samples per message (`frames` when more than 1); absent from older reports.
    var samplesPerMessage: Int?
  }

  var tool = "touch-load"
  var config: Config
  var interrupted: Bool
  /// When the run ended (ISO 8601, UTC).
  var date: String?
  /// Seconds into `series` at which frames began to be timed (after the observers connected,
  /// the ramp-up and the warm-up).
  var timedFromSecond: Double?
  /// Seconds from the first connection to the end of the drain.
  var elapsed: Double
  /// Seconds during which frames were being sent (first frame due to last frame due).
  var sendingTime: Double
  var sourceConnections: ConnectionSummary
  var observerConnections: ConnectionSummary
  var connectTime: LatencySummary
  var framesScheduled: Int
  var framesSent: Int
  /// Frames sent over `sendingTime`, from the first source's first frame due to the end.
  var framesPerSecond: Double
  /// The sum of each source's own rate (its frames over its own first to last frame due):
  /// the rate while every source sends, which is what a load held means. Sources connect
  /// over the ramp-up (or, without one, over the time connecting them takes), so
  /// `framesPerSecond` reads lower by that spread over the run.
  var steadyFramesPerSecond: Double
  var messagesReceived: Int
  var messagesPerSecond: Double
  var messagesByType: [String: Int]
  var messagesPerObserver: MinMeanMax
  var gestures: [String: Int]
  var latency: LatencySummary
  /// `latency` of the raw mirror's `touches` and of the engine's `gesture` events alone.
  /// These and the fields below marked optional are absent from older reports.
  var touchLatency: LatencySummary?
  var gestureLatency: LatencySummary?
  /// The latency percentile curves ("all", "touches", "gestures"), HdrHistogram style, for
  /// drawing a run or comparing two.
  var distributions: [String: [PercentilePoint]]?
  /// How late touch-load sent each frame after its due time (after the warm-up), floored
  /// at 1 µs. It is part of every latency figure above (latency counts from the due time):
  /// a p99 here near the latency's p99 means the generator, not the relay, was behind.
  var sendLag: LatencySummary
  var timerDrivenMessages: Int
  var unmatchedMessages: Int
  var outOfOrderMessages: Int
  var warmupSkipped: Int
  var droppedNotices: Int
  var droppedMessages: Int
  var serverErrors: [String: Int]
  var failures: [String: Int]
  /// The text of the first `serverErrors` of each code and `failures` of each kind.
  var firstMessages: [String: String]?
  var cpu: CPUTime
  /// What the reader should know before trusting the figures (touch-load behind its schedule).
  var warnings: [String]
  var series: [SecondReport]

  struct MinMeanMax: Codable, Sendable {
    var min: Int
    var mean: Double
    var max: Int
  }

  struct CPUTime: Codable, Sendable {
    var userSeconds: Double
    var systemSeconds: Double

    static func current() -> CPUTime {
      var usage = rusage()
      #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
      #else
        getrusage(RUSAGE_SELF, &usage)
      #endif
      func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
      return CPUTime(userSeconds: s(usage.ru_utime), systemSeconds: s(usage.ru_stime))
    }
  }

  func json() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return try encoder.encode(self)
  }

  /// The summary printed at the end, in the manner of wrk.
  var text: String {
    let c = config
    func rate(_ n: Double) -> String { String(format: "%.1f/s", n) }
    func list(_ d: [String: Int]) -> String {
      d.isEmpty
        ? "none"
        : d.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
    var lines: [String] = []
    lines.append(
      "touch-load \(interrupted ? "(interrupted) " : "")\(String(format: "%.1f", elapsed)) s @ \(c.url): "
        + "\(c.sources) sources x \(c.rate) Hz\((c.samplesPerMessage ?? 1) > 1 ? " (\(c.samplesPerMessage!) samples per message)" : "") over \(c.sessions) sessions, \(c.observersPerSession) observers/session"
        + "\(c.raw ? " (raw)" : ""), scenario \(c.scenario)")
    lines.append(
      "  connections   sources \(sourceConnections.connected)/\(sourceConnections.attempted), observers "
        + "\(observerConnections.connected)/\(observerConnections.attempted); connect \(connectTime.line)"
    )
    lines.append(
      "  frames        sent \(framesSent) of \(framesScheduled) ticks in \(String(format: "%.1f", sendingTime)) s "
        + "(\(rate(framesPerSecond)); all sources sending \(rate(steadyFramesPerSecond)))")
    lines.append(
      "  received      \(messagesReceived) (\(rate(messagesPerSecond))); per observer min \(messagesPerObserver.min) "
        + "mean \(String(format: "%.1f", messagesPerObserver.mean)) max \(messagesPerObserver.max)")
    lines.append("  by type       \(list(messagesByType))")
    if !gestures.isEmpty { lines.append("  gestures      \(list(gestures))") }
    lines.append("  latency       \(latency.line)")
    lines.append("  send lag      \(sendLag.line)  (touch-load's own, included above)")
    if timerDrivenMessages + unmatchedMessages + outOfOrderMessages > 0 {
      lines.append(
        "                timer-driven \(timerDrivenMessages), unmatched \(unmatchedMessages), "
          + "out of order \(outOfOrderMessages)")
    }
    lines.append("  dropped       \(droppedNotices) notices, \(droppedMessages) messages")
    lines.append("  errors        server \(list(serverErrors)); other \(list(failures))")
    let failedConnections = sourceConnections.failures.merging(
      observerConnections.failures, uniquingKeysWith: +)
    if !failedConnections.isEmpty { lines.append("  connect fails \(list(failedConnections))") }
    lines.append(
      String(
        format: "  cpu           touch-load user %.2f s, system %.2f s", cpu.userSeconds,
        cpu.systemSeconds))
    for w in warnings { lines.append("  warning       \(w)") }
    return lines.joined(separator: "\n")
  }
}

/// HdrHistogram's percentile distribution text (values in ms), which HdrHistogram's
/// plotters and wrk2's tooling read.
func hgrm(_ h: Histogram<UInt64>) -> String {
  var out = ""
  h.outputPercentileDistribution(to: &out, outputValueUnitScalingRatio: 1000)
  return out
}

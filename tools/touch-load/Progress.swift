import Foundation
import TouchRelayClient

/// The live status: one line rewritten in place on a terminal, plain lines otherwise
/// (logs, CI), both on stderr so stdout keeps only the report.
final class ProgressPrinter: Sendable {
  private struct State {
    var phase = "starting"
    var lastSent = 0
    var lastReceived = 0
    var lastTime = nowNanos()
    var wroteLine = false
  }

  private let state = Locked(State())
  private let enabled: Bool
  private let tty: Bool
  private let clock: RunClock

  init(enabled: Bool, clock: RunClock) {
    self.enabled = enabled
    self.tty = isatty(STDERR_FILENO) != 0
    self.clock = clock
  }

  var phase: String {
    get { state.withLock { $0.phase } }
    set { state.withLock { $0.phase = newValue } }
  }

  /// Takes the sample only when the line is shown: a sample copies every loop's histograms on
  /// that loop, not worth it for nothing (-q, as tools/bench runs it).
  func update(
    _ sample: () async -> (RecorderData, connected: (sources: Int, observers: Int))
  ) async {
    guard enabled else { return }
    let (d, connected) = await sample()
    let now = nowNanos()
    let line: String = state.withLock { s in
      let dt = max(Double(now - s.lastTime) / 1e9, 0.001)
      let sentRate = Double(d.framesSent - s.lastSent) / dt
      let receivedRate = Double(d.receivedTotal - s.lastReceived) / dt
      s.lastSent = d.framesSent
      s.lastReceived = d.receivedTotal
      s.lastTime = now
      // Latency of the last whole second.
      let second = clock.second(now) - 1
      let recent =
        second >= 0 && second < d.seconds.count ? LatencySummary(d.seconds[second].latency) : nil
      let latency =
        recent.map {
          $0.count == 0
            ? "-" : String(format: "p50 %.2f p99 %.2f max %.2f ms", $0.p50, $0.p99, $0.max)
        } ?? "-"
      let errors = d.serverErrors.values.reduce(0, +) + d.failures.values.reduce(0, +)
      return String(
        format: "%6.1fs %@ src %d obs %d | sent %.0f/s recv %.0f/s | %@ | dropped %d err %d",
        Double(now - clock.epoch) / 1e9, s.phase, connected.sources, connected.observers, sentRate,
        receivedRate,
        latency, d.droppedMessages, errors)
    }
    write(line)
  }

  private func write(_ line: String) {
    if tty {
      state.withLock { $0.wroteLine = true }
      FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
    } else {
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  }

  /// Leaves the last line on screen and moves past it.
  func finish() {
    if tty, state.withLock({ $0.wroteLine }) { FileHandle.standardError.write(Data("\n".utf8)) }
  }
}

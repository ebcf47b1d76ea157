import Foundation
import Testing

@testable import touch_load

/// `--samples-per-message N`: the same samples at the same rate, N to a `frames` message; the
/// relay takes each sample as a frame, so a raw observer gets one `touches` per sample.
@Suite struct SamplesPerMessageTests {
  @Test func everySampleOfABatchedRunReachesTheObserver() async throws {
    // 2 s: a busy machine may take most of a second to connect the sources.
    let report = try await LoadRunAgainstRelay.run(sources: 2, samplesPerMessage: 4)
    #expect(report.config.samplesPerMessage == 4)
    #expect(report.serverErrors.isEmpty, "\(report.serverErrors)")
    #expect(report.failures.isEmpty, "\(report.failures)")
    // --send-idle: every scheduled sample is sent (how many depends on how late a busy machine
    // started the sources; 60 a second per source when idle).
    #expect(report.framesSent == report.framesScheduled)
    #expect(report.framesSent >= 8)
    // Each source that stops with a finger down sends one last frame (untimed) to lift it.
    let touches = report.messagesByType["touches"] ?? 0
    #expect(touches >= report.framesSent && touches <= report.framesSent + 2, "\(report.messagesByType)")
    #expect(report.text.contains("(4 samples per message)"))
  }
}

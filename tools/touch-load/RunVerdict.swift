/// What a reader should know first about a run: whether anything went wrong (connections
/// refused, errors, drops, frames not sent, touch-load behind its schedule, interrupted), in
/// one line, each problem with its count.
struct RunVerdict {
  var problems: [String]

  init(_ r: Report) {
    var p: [String] = []
    let failedConnections = r.sourceConnections.failed + r.observerConnections.failed
    if failedConnections > 0 { p.append("\(failedConnections) connection\(failedConnections == 1 ? "" : "s") failed") }
    let errors = r.serverErrors.values.reduce(0, +) + r.failures.values.reduce(0, +)
    if errors > 0 { p.append("\(errors) error\(errors == 1 ? "" : "s")") }
    if r.droppedMessages > 0 || r.droppedNotices > 0 {
      p.append("\(r.droppedMessages) message\(r.droppedMessages == 1 ? "" : "s") dropped")
    }
    // Without --send-idle a tick with no finger down sends nothing, by design.
    let unsent = r.framesScheduled - r.framesSent
    if r.config.sendIdle, unsent > 0 { p.append("\(unsent) scheduled frame\(unsent == 1 ? "" : "s") not sent") }
    if r.latency.count == 0 { p.append("no message was timed") }
    if !r.warnings.isEmpty { p.append("touch-load was behind its schedule") }
    if r.interrupted { p.append("interrupted") }
    problems = p
  }

  var clean: Bool { problems.isEmpty }

  /// "clean run: p99 1.20 ms ..." or the problems.
  func headline(_ r: Report) -> String {
    let latency = "latency p99 \(Markup.ms(r.latency.p99)) ms, max \(Markup.ms(r.latency.max)) ms"
    return clean
      ? "Clean run: every connection made, no errors, no drops; \(latency)."
      : "\(problems.count) problem\(problems.count == 1 ? "" : "s"): \(problems.joined(separator: "; ")). \(latency.prefix(1).uppercased() + latency.dropFirst())."
  }
}

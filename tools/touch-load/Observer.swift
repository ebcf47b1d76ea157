import NIOCore
import TouchRelayClient

/// What one observer connection does with each message, on its event loop: classify it,
/// find when the frame behind it was due, record the latency.
final class ObserverState {
  let recorder: LatencyRecorder
  let registry: SourceRegistry
  let flags: RunFlags
  private var schedules: [UInt64: SourceSchedule] = [:]
  private var lastSeq: [UInt64: Int64] = [:]
  private(set) var messages = 0

  init(recorder: LatencyRecorder, registry: SourceRegistry, flags: RunFlags) {
    self.recorder = recorder
    self.registry = registry
    self.flags = flags
  }

  func handle(_ event: WebSocketEvent) {
    switch event {
    case .text(let buffer):
      let now = nowNanos()
      messages += 1
      buffer.withUnsafeReadableBytes { handle(MessageScanner(bytes: $0), now: now) }
    case .binary:
      recorder.received(.other, now: nowNanos())
    case .closed(let code, let reason):
      if !flags.stopping { recorder.failure("observer closed (\(code))", message: reason, now: nowNanos()) }
    case .ping, .pong:
      break
    }
  }

  private func handle(_ m: MessageScanner, now: UInt64) {
    let kind = m.kind
    recorder.received(kind, now: now)
    switch kind {
    case .touches, .gesture, .scene:
      // A scene snapshot not caused by a frame has no seq: nothing to time.
      guard let seq = m.seq else { return }
      guard let h = m.hash(of: "\"source\":\""), let schedule = schedule(h) else {
        recorder.data.unmatched += 1
        return
      }
      var due = schedule.due(seq: seq)
      // A timer-driven gesture (tap confirmed, long press) carries the due time of its
      // timer as `t`, later than its frame's: it is late only from then on.
      if let t = m.t {
        let timerDue = recorder.clock.nanos(ms: t)
        if timerDue > due &+ 1_000_000 {
          recorder.data.timerEvents += 1
          due = timerDue
        }
      }
      recorder.latency(scheduled: due, now: now, kind: kind)
      if kind == .touches {
        if let last = lastSeq[h], seq <= last { recorder.data.outOfOrder += 1 }
        lastSeq[h] = seq
      } else if kind == .gesture, let g = m.string("\"gesture\":\""),
        let s = m.string("\"state\":\"")
      {
        recorder.data.gestures["\(g) \(s)", default: 0] += 1
      }
    case .dropped:
      recorder.dropped(count: m.count ?? 0, now: now)
    case .error:
      recorder.serverError(
        m.string("\"code\":\"") ?? "unknown", message: m.string("\"message\":\""), now: now)
    case .source, .welcome, .other:
      break
    }
  }

  private func schedule(_ h: UInt64) -> SourceSchedule? {
    if let s = schedules[h] { return s }
    guard let s = registry.lookup(hash: h) else { return nil }
    schedules[h] = s
    return s
  }
}

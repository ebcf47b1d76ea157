import NIOCore
import TouchProtocol
import TouchRelayClient

/// Sends one source's frames on a fixed schedule (open loop, as wrk2): frame n is due at
/// `first + (n - 1) * period` whatever happened before. When the loop falls behind, every
/// overdue frame goes out at once; its latency still counts from when it was due, so a
/// stall of the server or of touch-load itself shows up instead of being hidden.
final class SourceDriver {
  let connection: WebSocketConnection
  let recorder: LatencyRecorder
  let schedule: SourceSchedule
  let end: UInt64
  let sendIdle: Bool
  private var trace: any TouchTrace
  private var seq: Int64 = 1
  private var timer: Scheduled<Void>?
  private var stopped = false

  init(
    connection: WebSocketConnection, recorder: LatencyRecorder, schedule: SourceSchedule,
    end: UInt64,
    trace: any TouchTrace, sendIdle: Bool
  ) {
    self.connection = connection
    self.recorder = recorder
    self.schedule = schedule
    self.end = end
    self.trace = trace
    self.sendIdle = sendIdle
  }

  func start() { tick() }

  func stop() {
    stopped = true
    timer?.cancel()
  }

  private func tick() {
    guard !stopped, connection.isActive else { return }
    let now = nowNanos()
    var wrote = false
    var due = schedule.due(seq: seq)
    while due <= now, due < end {
      recorder.data.framesScheduled += 1
      if let touches = trace.next() ?? (sendIdle ? [] : nil) {
        let frame = Frame(seq: seq, t: recorder.clock.ms(due), touches: touches)
        var buffer = connection.channel.allocator.buffer(capacity: 64 + 72 * touches.count)
        ClientMessageEncoder.frame(frame, into: &buffer)
        connection.sendText(buffer, flush: false)
        recorder.frameSent(scheduled: due)
        wrote = true
      }
      seq += 1
      due = schedule.due(seq: seq)
    }
    if wrote { connection.flush() }
    guard due < end else { return }
    timer = connection.eventLoop.assumeIsolated().scheduleTask(deadline: .uptimeNanoseconds(due)) {
      [self] in
      tick()
    }
  }
}

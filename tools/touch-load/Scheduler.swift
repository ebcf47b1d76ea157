import NIOCore
import TouchProtocol
import TouchRelayClient

/// Sends one source's frames on a fixed schedule (open loop, as wrk2): frame n is due at
/// `first + (n - 1) * period` whatever happened before. When the loop falls behind, every
/// overdue frame goes out at once; its latency still counts from when it was due, so a
/// stall of the server or of touch-load itself shows up instead of being hidden. Its loop's
/// `SendTicker` calls it.
final class SourceDriver {
  let connection: WebSocketConnection
  let recorder: LatencyRecorder
  let schedule: SourceSchedule
  let end: UInt64
  let sendIdle: Bool
  /// Samples per message: 1 sends each as a `frame`; more are gathered into `frames`
  /// messages of N sample slots, each sent when its last slot is due (a device sending the
  /// coalesced samples of one display frame).
  let samplesPerMessage: Int
  /// Samples due but not sent yet, while a `frames` message fills (reused).
  private var pending: [Frame] = []
  private var trace: any TouchTrace
  private var seq: Int64 = 1
  /// When the next frame is due (the ticker checks this before calling `sendDue`).
  var nextDue: UInt64 { schedule.due(seq: seq) }
  private var stopped = false
  /// The touches of the last frame sent: those not ended are lifted when the run stops
  /// (kept whole, as filtering them every frame cost an allocation per frame).
  private var lastTouches: [TouchPoint] = []
  /// This driver's own masking keys: it lives on one event loop, so no lock is needed.
  private var masks = MaskGenerator()
  /// Frames sent on the schedule, and the due times of the first and the last of them.
  private var sent = 0
  private var firstSentDue: UInt64 = 0
  private var lastSentDue: UInt64 = 0

  /// This source's own rate: its frames over the span from its first to its last, counted
  /// as intervals (one fewer than the frames), so a source on schedule reads exactly its
  /// rate. Nil before two frames.
  var framesPerSecond: Double? {
    guard sent >= 2, lastSentDue > firstSentDue else { return nil }
    return Double(sent - 1) / (Double(lastSentDue - firstSentDue) / 1e9)
  }

  init(
    connection: WebSocketConnection, recorder: LatencyRecorder, schedule: SourceSchedule,
    end: UInt64,
    trace: any TouchTrace, sendIdle: Bool, samplesPerMessage: Int = 1
  ) {
    self.connection = connection
    self.recorder = recorder
    self.schedule = schedule
    self.end = end
    self.trace = trace
    self.sendIdle = sendIdle
    self.samplesPerMessage = samplesPerMessage
    if samplesPerMessage > 1 { pending.reserveCapacity(samplesPerMessage) }
  }

  /// Stops sending. Fingers still down are cancelled in one last frame, so the engine does
  /// not see a long press during the drain. That frame is not on the schedule's grid before
  /// its due time, so it is sent early and not timed.
  func stop() {
    stopped = true
    let cancel = lastTouches.filter { !$0.phase.isTerminal }.map { p in
      var p = p
      p.phase = .cancelled
      return p
    }
    guard connection.isActive else { return }
    if sendPending(), cancel.isEmpty { connection.flush() }
    guard !cancel.isEmpty else { return }
    lastTouches = []
    send(Frame(seq: seq, t: recorder.clock.ms(schedule.due(seq: seq)), touches: cancel))
    connection.flush()
    seq += 1
  }

  private func send(_ frame: Frame) {
    // Room in front for the WebSocket header (at most 14 bytes from a client): NIO's encoder
    // then writes it in place, so a frame is one buffer and one write, not two.
    var buffer = connection.channel.allocator.buffer(capacity: 14 + 64 + 72 * frame.touches.count)
    buffer.moveWriterIndex(forwardBy: 14)
    buffer.moveReaderIndex(forwardBy: 14)
    ClientMessageEncoder.frame(frame, into: &buffer)
    connection.sendText(buffer, maskKey: masks.next(), flush: false)
  }

  /// Sends the samples gathered so far in one `frames` message; false if there were none.
  @discardableResult
  private func sendPending() -> Bool {
    guard !pending.isEmpty else { return false }
    var buffer = connection.channel.allocator.buffer(capacity: 14 + 32 + pending.count * 112)
    buffer.moveWriterIndex(forwardBy: 14)
    buffer.moveReaderIndex(forwardBy: 14)
    ClientMessageEncoder.frames(pending, into: &buffer)
    connection.sendText(buffer, maskKey: masks.next(), flush: false)
    pending.removeAll(keepingCapacity: true)
    return true
  }

  /// Sends every frame due by `now`; false once there is nothing more to send (or it was
  /// stopped, or its connection closed).
  func sendDue(now: UInt64) -> Bool {
    guard !stopped, connection.isActive else { return false }
    var wrote = false
    var due = schedule.due(seq: seq)
    while due <= now, due < end {
      recorder.data.framesScheduled += 1
      if let touches = trace.next() ?? (sendIdle ? [] : nil) {
        let frame = Frame(seq: seq, t: recorder.clock.ms(due), touches: touches)
        if samplesPerMessage == 1 {
          send(frame)
          wrote = true
        } else {
          pending.append(frame)
        }
        // A sample's send lag counts to when it was taken; its wait for the rest of its
        // message is in its latency, as a device's coalesced samples wait for their event.
        recorder.frameSent(scheduled: due, now: now)
        if sent == 0 { firstSentDue = due }
        lastSentDue = due
        sent += 1
        lastTouches = touches
      }
      // A message covers N sample slots and goes when its last slot is due, with the samples
      // there were (none while no finger is down, without --send-idle).
      let lastOfMessage = samplesPerMessage > 1 && seq % Int64(samplesPerMessage) == 0
      seq += 1
      due = schedule.due(seq: seq)
      if samplesPerMessage > 1, lastOfMessage || due >= end, sendPending() { wrote = true }
    }
    if wrote { connection.flush() }
    return due < end
  }
}

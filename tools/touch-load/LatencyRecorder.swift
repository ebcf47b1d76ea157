import Histogram

/// Latency histograms hold microseconds, from 1 us to 10 minutes.
func makeLatencyHistogram(digits: SignificantDigits = .three) -> Histogram<UInt64> {
  Histogram<UInt64>(
    lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000,
    numberOfSignificantValueDigits: digits)
}

/// One second of the run, as seen by one event loop.
struct SecondStats: Sendable {
  var sent = 0
  var received = 0
  var droppedNotices = 0
  var droppedMessages = 0
  var errors = 0
  /// Coarser (two digits) than the run's histogram: one of these per second per thread.
  var latency = makeLatencyHistogram(digits: .two)

  mutating func add(_ o: SecondStats) {
    sent += o.sent
    received += o.received
    droppedNotices += o.droppedNotices
    droppedMessages += o.droppedMessages
    errors += o.errors
    latency.add(o.latency)
  }
}

/// Everything measured on one event loop. Each loop owns one, so recording never takes a
/// lock; the orchestrator copies them out (a value, cheap to hand across threads) and merges.
struct RecorderData: Sendable {
  var latency = makeLatencyHistogram()
  /// The same latencies split by what carried them: the raw mirror and the engine's events.
  var touchLatency = makeLatencyHistogram()
  var gestureLatency = makeLatencyHistogram()
  /// How late touch-load itself sent each frame after the warm-up (µs past its due time).
  var sendLag = makeLatencyHistogram()
  var framesSent = 0
  var framesScheduled = 0
  /// Indexed by `MessageKind.rawValue`.
  var received = [Int](repeating: 0, count: MessageKind.allCases.count)
  var receivedTotal = 0
  var droppedNotices = 0
  var droppedMessages = 0
  /// `error` messages the server sent to sources, by code.
  var serverErrors: [String: Int] = [:]
  /// Other failures (unexpected closes...), by kind.
  var failures: [String: Int] = [:]
  var gestures: [String: Int] = [:]
  /// The first text seen for each server error code and failure kind (what to read first).
  var firstMessages: [String: String] = [:]
  /// Messages whose `seq` went backwards for their source on one observer.
  var outOfOrder = 0
  /// Messages carrying a `t` later than their frame's schedule: timer-driven gestures.
  var timerEvents = 0
  /// Messages from a source this run did not start (or unparsable ones).
  var unmatched = 0
  /// Latencies not recorded because their frame was scheduled during the warm-up.
  var warmupSkipped = 0
  var seconds: [SecondStats] = []

  mutating func bucket(_ s: Int) -> Int {
    if s >= seconds.count {
      seconds.append(contentsOf: repeatElement(SecondStats(), count: s - seconds.count + 1))
    }
    return s
  }

  mutating func add(_ o: RecorderData) {
    latency.add(o.latency)
    touchLatency.add(o.touchLatency)
    gestureLatency.add(o.gestureLatency)
    sendLag.add(o.sendLag)
    framesSent += o.framesSent
    framesScheduled += o.framesScheduled
    for i in received.indices { received[i] += o.received[i] }
    receivedTotal += o.receivedTotal
    droppedNotices += o.droppedNotices
    droppedMessages += o.droppedMessages
    serverErrors.merge(o.serverErrors, uniquingKeysWith: +)
    failures.merge(o.failures, uniquingKeysWith: +)
    gestures.merge(o.gestures, uniquingKeysWith: +)
    firstMessages.merge(o.firstMessages) { mine, _ in mine }
    outOfOrder += o.outOfOrder
    timerEvents += o.timerEvents
    unmatched += o.unmatched
    warmupSkipped += o.warmupSkipped
    for (i, s) in o.seconds.enumerated() { seconds[bucket(i)].add(s) }
  }
}

/// The recorder of one event loop; only touched on that loop.
final class LatencyRecorder {
  var data = RecorderData()
  let clock: RunClock
  /// Frames scheduled before this are not counted in the latency histogram.
  var warmupEnd: UInt64 = 0

  init(clock: RunClock) {
    self.clock = clock
  }

  /// A frame due at `scheduled` went out at `now` (its tick: at most one tick late, more
  /// when the loop fell behind).
  func frameSent(scheduled: UInt64, now: UInt64) {
    data.framesSent += 1
    data.seconds[data.bucket(clock.second(scheduled))].sent += 1
    guard scheduled >= warmupEnd else { return }
    let lagNanos = now > scheduled ? now - scheduled : 0
    data.sendLag.record(max(lagNanos / 1000, 1))
  }

  /// A message of `kind` an observer received at `now` for a frame due at `scheduled`.
  func latency(scheduled: UInt64, now: UInt64, kind: MessageKind) {
    guard scheduled >= warmupEnd else {
      data.warmupSkipped += 1
      return
    }
    // Only the final cancel frame of a stopped source is sent before it is due.
    guard now >= scheduled else { return }
    let us = (now - scheduled) / 1000
    data.latency.record(max(us, 1))
    if kind == .touches {
      data.touchLatency.record(max(us, 1))
    } else if kind == .gesture {
      data.gestureLatency.record(max(us, 1))
    }
    data.seconds[data.bucket(clock.second(now))].latency.record(max(us, 1))
  }

  func received(_ kind: MessageKind, now: UInt64) {
    data.received[kind.rawValue] += 1
    data.receivedTotal += 1
    data.seconds[data.bucket(clock.second(now))].received += 1
  }

  func dropped(count: Int, now: UInt64) {
    data.droppedNotices += 1
    data.droppedMessages += count
    let s = data.bucket(clock.second(now))
    data.seconds[s].droppedNotices += 1
    data.seconds[s].droppedMessages += count
  }

  /// `message`: the error's text, kept for the first error of each code only.
  func serverError(_ code: String, message: @autoclosure () -> String?, now: UInt64) {
    data.serverErrors[code, default: 0] += 1
    if data.firstMessages[code] == nil, let text = message() { data.firstMessages[code] = text }
    data.seconds[data.bucket(clock.second(now))].errors += 1
  }

  func failure(_ kind: String, message: @autoclosure () -> String? = nil, now: UInt64) {
    data.failures[kind, default: 0] += 1
    if data.firstMessages[kind] == nil, let text = message(), !text.isEmpty { data.firstMessages[kind] = text }
    data.seconds[data.bucket(clock.second(now))].errors += 1
  }
}

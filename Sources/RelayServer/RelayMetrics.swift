import Metrics
import Prometheus

/// The server's metrics, through swift-metrics onto a Prometheus registry of this server's
/// own (not the process-wide bootstrap, so several servers in one process stay apart).
/// Counters are plain integers on the service thread, handed to swift-metrics at each
/// scrape: the hot path pays an integer add, not an atomic and a lock.
final class RelayMetrics {
  let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory

  // Counted on the service thread, published at scrape.
  var framesIn = 0
  var messagesIn = 0
  var bytesIn = 0
  var messagesOut = 0
  var bytesOut = 0
  var gestureEvents = 0
  /// Messages dropped from observers' queues, and from sources' (their unread errors).
  var droppedForObservers = 0
  var droppedForSources = 0
  /// Times a flooding peer's reading was paused (`Relay.pauseReading`).
  var readPauses = 0
  var errors: [String: Int] = [:]
  var closes: [String: Int] = [:]
  private var published: [String: Int] = [:]
  private var counters: [String: Metrics.Counter] = [:]

  private let connectionsGauge: [Connection.Role: Metrics.Gauge]
  private let sessionsGauge: Metrics.Gauge
  private let queuedGauge: Metrics.Gauge
  private let deepestQueueGauge: Metrics.Gauge
  /// Arrival of a frame (or timer) to the write that delivered what it caused to an observer:
  /// one observation per write and cause, however many messages the cause produced.
  let deliveryLatency: Metrics.Timer
  /// Time in the gesture engine per frame, for one frame in `engineTimeSampling` (the 1st,
  /// 17th, ... frame the server takes in).
  let engineTime: Metrics.Timer
  static let engineTimeSampling = 16

  init() {
    var f = PrometheusMetricsFactory(registry: registry)
    let micro: [Duration] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000].map { .microseconds($0) }
    let milli: [Duration] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1000].map {
      .microseconds(Int($0 * 1000))
    }
    f.durationHistogramBuckets = [
      "touchrelay_engine_duration_seconds": micro, "touchrelay_delivery_latency_seconds": milli,
    ]
    factory = f
    connectionsGauge = [
      .source: Metrics.Gauge(label: "touchrelay_connections", dimensions: [("role", "source")], factory: f),
      .observer: Metrics.Gauge(label: "touchrelay_connections", dimensions: [("role", "observer")], factory: f),
    ]
    sessionsGauge = Metrics.Gauge(label: "touchrelay_sessions", factory: f)
    queuedGauge = Metrics.Gauge(label: "touchrelay_observer_queued_messages", factory: f)
    deepestQueueGauge = Metrics.Gauge(label: "touchrelay_observer_queue_deepest", factory: f)
    deliveryLatency = Metrics.Timer(label: "touchrelay_delivery_latency_seconds", factory: f)
    engineTime = Metrics.Timer(label: "touchrelay_engine_duration_seconds", factory: f)
  }

  func error(_ code: String) { errors[code, default: 0] += 1 }

  func close(_ code: UInt16?) { closes[code.map(String.init) ?? "none", default: 0] += 1 }

  /// Publishes everything and renders the Prometheus text format.
  func scrape(relay: Relay) -> [UInt8] {
    var sources = 0
    var observers = 0
    var queued = 0
    var deepest = 0
    for session in relay.sessions.values {
      sources += session.sources.count
      observers += session.observers.count
      for o in session.observers {
        queued += o.queue.count
        deepest = max(deepest, o.queue.count)
      }
    }
    connectionsGauge[.source]?.record(sources)
    connectionsGauge[.observer]?.record(observers)
    sessionsGauge.record(relay.sessions.count)
    queuedGauge.record(queued)
    deepestQueueGauge.record(deepest)
    publish("touchrelay_frames_in_total", [], framesIn)
    publish("touchrelay_messages_in_total", [], messagesIn)
    publish("touchrelay_bytes_in_total", [], bytesIn)
    publish("touchrelay_messages_out_total", [], messagesOut)
    publish("touchrelay_bytes_out_total", [], bytesOut)
    publish("touchrelay_gesture_events_total", [], gestureEvents)
    publish("touchrelay_dropped_messages_total", [("role", "observer")], droppedForObservers)
    publish("touchrelay_dropped_messages_total", [("role", "source")], droppedForSources)
    publish("touchrelay_read_pauses_total", [], readPauses)
    for (code, n) in errors { publish("touchrelay_errors_total", [("code", code)], n) }
    for (code, n) in closes { publish("touchrelay_closes_total", [("code", code)], n) }
    return registry.emitToBuffer()
  }

  private func publish(_ name: String, _ dims: [(String, String)], _ total: Int) {
    let key = name + dims.map { "|\($0.0)=\($0.1)" }.joined()
    let counter = counters[key] ?? Metrics.Counter(label: name, dimensions: dims, factory: factory)
    counters[key] = counter
    let delta = total - published[key, default: 0]
    if delta > 0 { counter.increment(by: delta) }
    published[key] = total
  }
}

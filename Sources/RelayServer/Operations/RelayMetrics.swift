import Metrics
import Prometheus
import RelayCore
import TUIO
import TouchProtocol

/// The server's metrics, through swift-metrics onto a Prometheus registry of this server's
/// own (not the process-wide bootstrap, so several servers in one process stay apart).
/// The counters are the core's plain integers (`RelayCounters`), handed to swift-metrics at each
/// scrape: the hot path pays an integer add, not an atomic and a lock.
final class RelayMetrics {
  let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory

  private var published: [String: Int] = [:]
  /// The cluster bus, with `--redis` (its counters are published with the core's).
  weak var bus: RedisBus?
  private var counters: [String: Metrics.Counter] = [:]

  private let connectionsGauge: [Peer.Role: Metrics.Gauge]
  private let sessionsGauge: Metrics.Gauge
  private let queuedGauge: Metrics.Gauge
  private let deepestQueueGauge: Metrics.Gauge
  /// Arrival of a frame (or timer) to the write that delivered what it caused to an observer:
  /// one observation per write and cause, however many messages the cause produced. Kept
  /// outside the registry (see `LatencyHistogram`) and rendered after it.
  let deliveryLatency: LatencyHistogram
  /// Time in the gesture engine per frame, for one frame in `RelayCounters.engineTimeSampling`
  /// (the 1st, 17th, ... frame the server takes in).
  let engineTime: Metrics.Timer

  /// `touchrelay_node_info{node="..."} 1`: which node a scrape came from, to join on.
  private let nodeInfo: Metrics.Gauge
  /// `touchrelay_limit{limit="..."}`: the limits the core enforces, so that an alert divides
  /// by each node's own; recorded at the first scrape, from the core's configuration.
  private var limitsRecorded = false
  /// `process_*`: start time, CPU, descriptors, memory.
  private let process = ProcessMetrics()

  /// The TUIO input's counters, with `--tuio-udp` (read on the service thread, as scrapes are).
  var tuioCounters: (() -> TUIOCounters)?
  /// TUIO out's datagrams sent and refused by the kernel, with `--tuio-out`.
  var tuioOutCounts: (() -> (sent: Int, failed: Int))?

  init(nodeID: String) {
    var f = PrometheusMetricsFactory(registry: registry)
    let micro: [Duration] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000].map { .microseconds($0) }
    let milli: [Duration] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1000].map {
      .microseconds(Int($0 * 1000))
    }
    f.durationHistogramBuckets = [
      "touchrelay_engine_duration_seconds": micro, "touchrelay_bus_delay_seconds": milli,
    ]
    deliveryLatency = LatencyHistogram(name: "touchrelay_delivery_latency_seconds", buckets: milli)
    factory = f
    connectionsGauge = [
      .source: Metrics.Gauge(label: "touchrelay_connections", dimensions: [("role", "source")], factory: f),
      .observer: Metrics.Gauge(label: "touchrelay_connections", dimensions: [("role", "observer")], factory: f),
    ]
    sessionsGauge = Metrics.Gauge(label: "touchrelay_sessions", factory: f)
    queuedGauge = Metrics.Gauge(label: "touchrelay_observer_queued_messages", factory: f)
    deepestQueueGauge = Metrics.Gauge(label: "touchrelay_observer_queue_deepest", factory: f)
    engineTime = Metrics.Timer(label: "touchrelay_engine_duration_seconds", factory: f)
    busDelay = Metrics.Timer(label: "touchrelay_bus_delay_seconds", factory: f)
    nodeInfo = Metrics.Gauge(label: "touchrelay_node_info", dimensions: [("node", nodeID)], factory: f)
    nodeInfo.record(1)
    // Every documented code from the start, at 0: a series that appears only with its first
    // event hides that event from `rate` and `increase`, which need two samples.
    for code in ErrorCode.allCases { publish("touchrelay_errors_total", [("code", code.rawValue)], 0) }
    for code in Self.closeCodes { publish("touchrelay_closes_total", [("code", code)], 0) }
  }

  /// The codes a connection ends with that `protocol/README.md` documents: a peer's normal
  /// close (1000), every code the server closes with, and "none" (no close frame). Other codes
  /// a peer may close with are exported from their first close on.
  static let closeCodes: [String] = ["1000"] + CloseCode.allCases.map { String($0.rawValue) } + ["none"]

  /// Every `why` of `touchrelay_bus_malformed_total`: the labels of `BusFormatError`'s cases,
  /// visited by an exhaustive switch (the enum is not `CaseIterable`: `badKind` carries the
  /// byte), so that a case added to it stops the build here until it is exported.
  static let busMalformedReasons: [String] = {
    var reasons: [String] = []
    var next: BusFormatError? = .badMagic
    while let e = next {
      reasons.append(e.label)
      switch e {
      case .badMagic: next = .truncated
      case .truncated: next = .badKind(0)
      case .badKind: next = .badName
      case .badName: next = .tooLarge
      case .tooLarge: next = .badJSON
      case .badJSON: next = .trailingBytes
      case .trailingBytes: next = .outOfRange
      case .outOfRange: next = nil
      }
    }
    return reasons
  }()

  private func recordLimits(_ l: Limits) {
    let limits = [
      ("max_connections", l.maxConnections), ("max_connections_per_address", l.maxConnectionsPerAddress),
      ("max_sessions", l.maxSessions), ("max_observers_per_session", l.maxObserversPerSession),
      ("observer_queue", l.observerQueue),
    ]
    for (name, value) in limits {
      // The registry keeps the gauge, and its value, from here on.
      Metrics.Gauge(label: "touchrelay_limit", dimensions: [("limit", name)], factory: factory).record(value)
    }
    limitsRecorded = true
  }

  /// Cluster: from a record's `rt` on its node to its arrival here (one per data message).
  let busDelay: Metrics.Timer

  func recordBusDelay(milliseconds ms: Double) {
    busDelay.recordNanoseconds(Int64(max(0, ms) * 1_000_000))
  }

  /// The cluster's counters: the core's (records, gaps) and the bus driver's (messages, bytes).
  func publishCluster(_ cluster: ClusterState, bus: BusCounters) {
    let c = cluster.counters
    publish("touchrelay_bus_records_total", [("direction", "in")], c.recordsIn)
    publish("touchrelay_bus_records_total", [("direction", "out")], c.recordsOut)
    publish("touchrelay_bus_messages_total", [("direction", "in")], bus.messagesIn)
    publish("touchrelay_bus_messages_total", [("direction", "out")], bus.messagesOut)
    publish("touchrelay_bus_bytes_total", [("direction", "in")], bus.bytesIn)
    publish("touchrelay_bus_bytes_total", [("direction", "out")], bus.bytesOut)
    publish("touchrelay_bus_messages_dropped_total", [], bus.messagesDropped)
    publish("touchrelay_bus_reconnects_total", [], bus.reconnects)
    publish("touchrelay_bus_gaps_total", [], c.gaps)
    publish("touchrelay_bus_missed_records_total", [], c.missedRecords)
    publish("touchrelay_bus_nodes_lost_total", [], c.nodesLost)
    for why in Self.busMalformedReasons {
      publish("touchrelay_bus_malformed_total", [("why", why)], c.malformed[why, default: 0])
    }
    clusterGauges.up.record(cluster.busUp ? 1 : 0)
    clusterGauges.nodes.record(cluster.knownNodes.count)
  }

  private lazy var clusterGauges = (
    up: Metrics.Gauge(label: "touchrelay_bus_up", factory: factory),
    nodes: Metrics.Gauge(label: "touchrelay_bus_nodes", factory: factory)
  )

  /// Publishes everything and renders the Prometheus text format.
  func scrape(_ core: RelayCore) -> [UInt8] {
    if !limitsRecorded { recordLimits(core.configuration.limits) }
    var sources = 0
    var observers = 0
    var queued = 0
    var deepest = 0
    for session in core.sessions.values {
      sources += session.sources.count
      observers += session.observers.count
      for o in session.observers {
        queued += o.queuedCount
        deepest = max(deepest, o.queuedCount)
      }
    }
    connectionsGauge[.source]?.record(sources)
    connectionsGauge[.observer]?.record(observers)
    sessionsGauge.record(core.sessions.count)
    let c = core.counters
    queuedGauge.record(queued)
    deepestQueueGauge.record(deepest)
    publish("touchrelay_frames_in_total", [], c.framesIn)
    publish("touchrelay_messages_in_total", [], c.messagesIn)
    publish("touchrelay_bytes_in_total", [], c.bytesIn)
    publish("touchrelay_messages_out_total", [], c.messagesOut)
    publish("touchrelay_bytes_out_total", [], c.bytesOut)
    publish("touchrelay_gesture_events_total", [], c.gestureEvents)
    publish("touchrelay_dropped_messages_total", [("role", "observer")], c.droppedForObservers)
    publish("touchrelay_dropped_messages_total", [("role", "source")], c.droppedForSources)
    publish("touchrelay_read_pauses_total", [], c.readPauses)
    for (code, n) in c.errors { publish("touchrelay_errors_total", [("code", code)], n) }
    for (code, n) in c.closes { publish("touchrelay_closes_total", [("code", code)], n) }
    if let cluster = core.cluster { publishCluster(cluster, bus: bus?.counters ?? BusCounters()) }
    if let t = tuioCounters?() { publishTUIO(t) }
    if let (sent, failed) = tuioOutCounts?() {
      publish("touchrelay_tuio_out_datagrams_total", [("result", "sent")], sent)
      publish("touchrelay_tuio_out_datagrams_total", [("result", "failed")], failed)
    }
    var text = registry.emitToBuffer()
    deliveryLatency.emit(into: &text)
    process.emit(into: &text)
    return text
  }

  private func publishTUIO(_ t: TUIOCounters) {
    publish("touchrelay_tuio_datagrams_total", [], t.datagrams)
    publish("touchrelay_tuio_frames_total", [], t.frames)
    for (kind, n) in t.malformed { publish("touchrelay_tuio_malformed_total", [("kind", kind)], n) }
    publish("touchrelay_tuio_stale_frames_total", [], t.staleFrames)
    publish("touchrelay_tuio_redundant_frames_total", [], t.redundantFrames)
    publish("touchrelay_tuio_restarts_total", [], t.restarts)
    publish("touchrelay_tuio_refused_sources_total", [], t.refusedSources)
    publish("touchrelay_tuio_skipped_messages_total", [], t.skippedMessages)
    publish("touchrelay_tuio_fingers_over_limit_total", [], t.fingersOverLimit)
    publish("touchrelay_tuio_timeouts_total", [], t.timeouts)
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

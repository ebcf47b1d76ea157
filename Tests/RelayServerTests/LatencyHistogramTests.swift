import Prometheus
import Testing

@testable import RelayServer

/// The delivery latency histogram is recorded outside swift-prometheus (for speed) but must
/// read exactly as swift-prometheus' own histogram would for the same observations.
@Suite struct LatencyHistogramTests {
  let buckets: [Duration] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1000].map {
    .microseconds(Int($0 * 1000))
  }

  func both(_ nanoseconds: [Int64]) -> (ours: String, theirs: String) {
    let ours = LatencyHistogram(name: "touchrelay_delivery_latency_seconds", buckets: buckets)
    let registry = PrometheusCollectorRegistry()
    let theirs = registry.makeDurationHistogram(
      descriptor: MetricNameDescriptor(metricName: "touchrelay_delivery_latency", unitName: "seconds", helpText: ""),
      buckets: buckets)
    for ns in nanoseconds {
      ours.record(nanoseconds: ns)
      theirs.recordNanoseconds(ns)
    }
    var text: [UInt8] = []
    ours.emit(into: &text)
    return (String(decoding: text, as: UTF8.self), registry.emitToString())
  }

  @Test func readsAsSwiftPrometheusWhenEmpty() {
    let (ours, theirs) = both([])
    #expect(ours == theirs)
  }

  @Test func readsAsSwiftPrometheusOnBoundsAndBetween() {
    // On each bound, a nanosecond either side, over the last one, zero, and a sum past a second.
    var values: [Int64] = [0, 1, 2_000_000_000, 3_000_000_000]
    for b in buckets {
      let ns = b.components.seconds * 1_000_000_000 + b.components.attoseconds / 1_000_000_000
      values += [ns - 1, ns, ns + 1]
    }
    let (ours, theirs) = both(values)
    #expect(ours == theirs)
    #expect(ours.contains(#"touchrelay_delivery_latency_seconds_bucket{le="0.00005"} 4"#))
    #expect(ours.contains("touchrelay_delivery_latency_seconds_count \(values.count)\n"))
  }

  @Test func aNegativeIntervalCountsAsZero() {
    let h = LatencyHistogram(name: "x", buckets: buckets)
    h.record(nanoseconds: -5)
    var text: [UInt8] = []
    h.emit(into: &text)
    let s = String(decoding: text, as: UTF8.self)
    #expect(s.contains(#"x_bucket{le="0.00005"} 1"#))
    #expect(s.contains("x_sum 0.0\n"))
  }
}

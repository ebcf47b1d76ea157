import Prometheus

/// A latency histogram that the service thread records into with a few compares and one add,
/// rendered at each scrape in the Prometheus text format, as swift-prometheus renders its own
/// (the same `le` labels, from its `Duration.bucketRepresentation`).
///
/// The delivery latency is observed once per write, and a fan-out writes to every observer:
/// swift-prometheus' histogram took a lock, compared the value with every bucket as a 128-bit
/// `Duration` and added to each bucket it fell under: a large share of the server's work per
/// delivery (PERFORMANCE.md has the figure). Only the service thread records and scrapes, so
/// no lock.
///
/// A class over memory of its own rather than a struct of arrays: a record is then a few
/// compares and adds, with no uniqueness check or copy-on-write of the counts.
final class LatencyHistogram {
  let name: String
  /// Upper bounds in nanoseconds, ascending (a value equal to a bound counts in its bucket).
  private let bounds: UnsafeMutableBufferPointer<Int64>
  private let labels: [String]
  /// Per bucket, not cumulative; one more than `bounds` for the values above them all.
  private let counts: UnsafeMutableBufferPointer<Int>
  private var count = 0
  /// The sum, kept as whole seconds plus nanoseconds so that it cannot overflow.
  private var sumSeconds: Int64 = 0
  private var sumNanoseconds: Int64 = 0

  init(name: String, buckets: [Duration]) {
    let sorted = buckets.sorted()
    self.name = name
    bounds = .allocate(capacity: sorted.count)
    _ = bounds.initialize(
      from: sorted.lazy.map { $0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000 })
    labels = sorted.map(\.bucketRepresentation)
    counts = .allocate(capacity: sorted.count + 1)
    counts.initialize(repeating: 0)
  }

  deinit {
    bounds.deallocate()
    counts.deallocate()
  }

  func record(nanoseconds ns: Int64) {
    let ns = max(0, ns)
    var i = 0
    while i < bounds.count, ns > bounds[i] { i += 1 }
    counts[i] += 1
    count += 1
    sumNanoseconds += ns
    if sumNanoseconds >= 1_000_000_000 {
      sumSeconds += sumNanoseconds / 1_000_000_000
      sumNanoseconds %= 1_000_000_000
    }
  }

  /// `# TYPE`, the cumulative buckets, `+Inf`, `_sum` in seconds and `_count`.
  func emit(into buffer: inout [UInt8]) {
    var text = "# TYPE \(name) histogram\n"
    var cumulative = 0
    for (label, n) in zip(labels, counts) {
      cumulative += n
      text += "\(name)_bucket{le=\"\(label)\"} \(cumulative)\n"
    }
    text += "\(name)_bucket{le=\"+Inf\"} \(count)\n"
    let sum = Duration(secondsComponent: sumSeconds, attosecondsComponent: sumNanoseconds * 1_000_000_000)
    text += "\(name)_sum \(sum.bucketRepresentation)\n"
    text += "\(name)_count \(count)\n"
    buffer.append(contentsOf: text.utf8)
  }
}

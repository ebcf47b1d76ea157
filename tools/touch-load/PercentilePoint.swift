import Foundation
import Histogram

/// One point of a latency percentile curve: the latency (ms) at or under which `percentile`
/// per cent of the samples fell.
struct PercentilePoint: Codable, Sendable, Equatable {
  var percentile: Double
  var ms: Double

  /// The curve HdrHistogram's plotters draw: points evenly spaced in log(1 / (1 - p)), ten per
  /// decade (50 %, 90 %, 99 %, ... are on it), up to where the samples run out, then the
  /// maximum at 100 %. Evenly spaced on a log axis, so the tail gets as many points as the body.
  static func curve(_ h: Histogram<UInt64>) -> [PercentilePoint] {
    guard h.totalCount > 0 else { return [] }
    func ms(_ us: UInt64) -> Double { (Double(us)).rounded() / 1000 }
    var points: [PercentilePoint] = []
    // Up to the decade where the samples run out (1 / (1 - p) past the count is the maximum
    // already): the curve then reaches the maximum at a percentile, rather than sloping to it.
    let decades = min(6, log10(Double(h.totalCount)).rounded(.up))
    var step = 0
    while Double(step) / 10 <= decades {
      let p = 100 * (1 - pow(10, -Double(step) / 10))
      // Rounded so that 99.9 reads 99.9 in the JSON, not 99.90000000000001.
      let percentile = (p * 1e6).rounded() / 1e6
      points.append(PercentilePoint(percentile: percentile, ms: ms(h.valueAtPercentile(percentile))))
      step += 1
    }
    points.append(PercentilePoint(percentile: 100, ms: ms(h.max)))
    return points
  }
}

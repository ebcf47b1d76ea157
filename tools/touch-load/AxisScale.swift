import Foundation

/// Maps data values onto pixels, and picks round tick values for an axis.
struct AxisScale {
  var lower: Double
  var upper: Double
  var pixelLower: Double
  var pixelUpper: Double

  func pixel(_ v: Double) -> Double {
    let span = upper - lower
    guard span > 0 else { return pixelLower }
    return pixelLower + (v - lower) / span * (pixelUpper - pixelLower)
  }

  /// The smallest of 1, 2, 2.5, 5 times a power of ten at or above `v` (> 0), so the axis
  /// ends on a round value.
  static func niceCeiling(_ v: Double) -> Double {
    guard v > 0, v.isFinite else { return 1 }
    let power = pow(10, floor(log10(v)))
    for m in [1.0, 2, 2.5, 5, 10] where m * power >= v * (1 - 1e-9) { return m * power }
    return 10 * power
  }

  /// Five or so round ticks from 0 to `upper` (a `niceCeiling`).
  static func ticks(upTo upper: Double) -> [Double] {
    guard upper > 0 else { return [0] }
    let raw = upper / 5
    let power = pow(10, floor(log10(raw)))
    var step = 10 * power
    for m in [1.0, 2, 2.5, 5] where m * power >= raw * (1 - 1e-9) {
      step = m * power
      break
    }
    return stride(from: 0, through: upper * (1 + 1e-9), by: step).map { $0 }
  }
}

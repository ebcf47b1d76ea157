#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The little plane geometry the recognizers share.
enum Geometry {
  static func distance(_ dx: Double, _ dy: Double) -> Double { (dx * dx + dy * dy).squareRoot() }

  /// Screen angle of the vector (dx, dy); y grows downward, so a larger angle is clockwise.
  static func angle(_ dx: Double, _ dy: Double) -> Double { atan2(dy, dx) }

  /// Wraps an angle difference into (-pi, pi], so successive samples unwrap into a total turn.
  static func wrap(_ a: Double) -> Double {
    var a = a.truncatingRemainder(dividingBy: 2 * Double.pi)
    if a > Double.pi { a -= 2 * Double.pi }
    if a <= -Double.pi { a += 2 * Double.pi }
    return a
  }

  static func centroid(_ fingers: [Finger]) -> (x: Double, y: Double) {
    guard !fingers.isEmpty else { return (0, 0) }
    var sx = 0.0
    var sy = 0.0
    for f in fingers {
      sx += f.x
      sy += f.y
    }
    let n = Double(fingers.count)
    return (sx / n, sy / n)
  }

  /// Finger spread: the distance for two fingers, and twice the mean distance from the
  /// centroid for more (the same number for two, so the definition has no seam).
  static func spread(_ fingers: [Finger]) -> Double {
    guard fingers.count >= 2 else { return 0 }
    let c = centroid(fingers)
    var sum = 0.0
    for f in fingers { sum += distance(f.x - c.x, f.y - c.y) }
    return 2 * sum / Double(fingers.count)
  }

  /// Distance from a point to the segment ab.
  static func distance(
    fromX px: Double, y py: Double, toSegment ax: Double, _ ay: Double, _ bx: Double, _ by: Double
  ) -> Double {
    let dx = bx - ax
    let dy = by - ay
    let len2 = dx * dx + dy * dy
    guard len2 > 0 else { return distance(px - ax, py - ay) }
    let u = min(1, max(0, ((px - ax) * dx + (py - ay) * dy) / len2))
    return distance(px - (ax + u * dx), py - (ay + u * dy))
  }
}

/// A drawing as the $P point-cloud recognizer sees it: `count` points, resampled evenly along
/// its strokes, scaled so its larger side is 1 and moved so its centroid is the origin.
/// Following Vatavu, Anthony and Wobbrock, "Gestures as Point Clouds: A $P Recognizer for User
/// Interface Prototypes" (ICMI 2012): a cloud has no order, so neither the order nor the
/// direction of the strokes matters, and speed does not either (the points are resampled by
/// distance, not time). Pure arithmetic: no clock.
struct PointCloud: Sendable, Equatable {
  /// The paper's n: 32 points were as accurate as more in its study, and the match is O(n²).
  static let count = 32

  /// x0, y0, x1, y1, ... (`count` pairs): flat, so a comparison walks one buffer.
  private(set) var coordinates: [Double]

  /// A cloud of `strokes` (each a list of points), or nil if the points have no extent.
  init?(strokes: [[(x: Double, y: Double)]]) {
    let n = Self.count
    var length = 0.0
    for s in strokes where s.count > 1 {
      for i in 1..<s.count { length += Geometry.distance(s[i].x - s[i - 1].x, s[i].y - s[i - 1].y) }
    }
    var pts: [(x: Double, y: Double)] = []
    pts.reserveCapacity(n)
    if length > 0 {
      // The paper's resampling: one point every `interval` along each stroke's path, the
      // path not jumping from one stroke's end to the next's start.
      let interval = length / Double(n - 1)
      var carried = 0.0
      for s in strokes where !s.isEmpty {
        var prev = s[0]
        if pts.isEmpty { pts.append(prev) }
        var i = 1
        while i < s.count {
          let cur = s[i]
          let d = Geometry.distance(cur.x - prev.x, cur.y - prev.y)
          if carried + d >= interval, d > 0 {
            let f = (interval - carried) / d
            let q = (x: prev.x + f * (cur.x - prev.x), y: prev.y + f * (cur.y - prev.y))
            if pts.count < n { pts.append(q) }
            prev = q
            carried = 0
          } else {
            carried += d
            prev = cur
            i += 1
          }
        }
      }
      // Rounding can leave the last point out.
      while pts.count < n, let last = strokes.last(where: { !$0.isEmpty })?.last { pts.append(last) }
    } else {
      // Only dots: each stroke's first point, repeated to `n`.
      let dots = strokes.compactMap(\.first)
      guard !dots.isEmpty else { return nil }
      for i in 0..<n { pts.append(dots[i % dots.count]) }
    }
    var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
    for p in pts {
      minX = min(minX, p.x)
      maxX = max(maxX, p.x)
      minY = min(minY, p.y)
      maxY = max(maxY, p.y)
    }
    let side = max(maxX - minX, maxY - minY)
    guard side > 0, side.isFinite else { return nil }
    var cx = 0.0, cy = 0.0
    for p in pts {
      cx += (p.x - minX) / side
      cy += (p.y - minY) / side
    }
    cx /= Double(n)
    cy /= Double(n)
    coordinates = []
    coordinates.reserveCapacity(2 * n)
    for p in pts {
      coordinates.append((p.x - minX) / side - cx)
      coordinates.append((p.y - minY) / side - cy)
    }
  }

  /// The paper's greedy cloud match: from several starting points, each point of one cloud
  /// takes the nearest point of the other still free, earlier matches weighing more; both
  /// directions, the least sum wins. ε = 0.5 tries ⌊n^(1-ε)⌋ = 5 apart, n/5 starts.
  /// Answered as the weighted mean distance (the sum over the weights' sum), in units of the
  /// clouds' unit box: 0 for identical clouds.
  func distance(to other: PointCloud) -> Double {
    let n = Self.count
    let step = 5  // ⌊32^0.5⌋
    var best = Double.infinity
    var start = 0
    while start < n {
      best = min(best, Self.cloudDistance(coordinates, other.coordinates, start: start, bound: best))
      best = min(best, Self.cloudDistance(other.coordinates, coordinates, start: start, bound: best))
      start += step
    }
    return best / (Double(n + 1) / 2)
  }

  /// One greedy pass from `start`; stops early once it exceeds `bound` (it cannot win).
  private static func cloudDistance(_ a: [Double], _ b: [Double], start: Int, bound: Double) -> Double {
    let n = count
    // A bit per point of `b` already matched (n = 32 fits one word).
    var taken: UInt64 = 0
    var sum = 0.0
    var i = start
    for k in 0..<n {
      let ax = a[2 * i], ay = a[2 * i + 1]
      var nearest = Double.infinity
      var index = 0
      for j in 0..<n where taken & (1 << UInt64(j)) == 0 {
        let dx = ax - b[2 * j], dy = ay - b[2 * j + 1]
        let d = dx * dx + dy * dy
        if d < nearest {
          nearest = d
          index = j
        }
      }
      taken |= 1 << UInt64(index)
      // The paper's weight: 1 for the first point matched, down to 1/n for the last.
      let weight = 1 - Double(k) / Double(n)
      sum += weight * nearest.squareRoot()
      if sum >= bound { return sum }
      i = (i + 1) % n
    }
    return sum
  }
}

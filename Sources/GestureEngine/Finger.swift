/// A finger that is down, keyed by the client's touch id for its whole life.
struct Finger: Sendable {
  let id: Int64
  let downX: Double
  let downY: Double
  let downT: Double
  /// Regions the finger began in (article 000 hit-tests in touchesBegan).
  let downRegions: [String]
  var x: Double
  var y: Double
  var t: Double

  init(id: Int64, x: Double, y: Double, t: Double, regions: [String]) {
    self.id = id
    downX = x
    downY = y
    downT = t
    downRegions = regions
    self.x = x
    self.y = y
    self.t = t
  }

  var distanceFromDown: Double { Geometry.distance(x - downX, y - downY) }
}

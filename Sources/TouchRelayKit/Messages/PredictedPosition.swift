/// A touch's `predicted` member: where the server expects it (points, the source's surface).
public struct PredictedPosition: Sendable, Equatable {
  public var x: Double
  public var y: Double

  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
}

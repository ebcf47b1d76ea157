/// A source's touch surface, in points (origin top-left, y grows downward).
public struct Device: Sendable, Equatable, Codable {
  public var name: String
  public var width: Double
  public var height: Double

  public init(name: String, width: Double, height: Double) {
    self.name = name
    self.width = width
    self.height = height
  }
}

/// A named rectangle for hit-testing, in points. Listed order is z order: first is topmost.
public struct Region: Sendable, Equatable, Codable {
  public var id: String
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double

  public init(id: String, x: Double, y: Double, width: Double, height: Double) {
    self.id = id
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// Edges count as inside, as CGRectContainsPoint does in article 000's hit test.
  public func contains(x px: Double, y py: Double) -> Bool {
    px >= x && px <= x + width && py >= y && py <= y + height
  }
}

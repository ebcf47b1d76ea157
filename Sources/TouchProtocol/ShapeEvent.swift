/// A drawing the engine recognized as one of the source's `shapes` (`gesture` `shape`).
public struct ShapeEvent: Sendable, Equatable {
  /// The gesture instance's id, from the same count as the other gestures'.
  public var id: Int
  /// When the drawing was judged: the last lift plus `shapeStrokeGap` (device ms).
  public var t: Double
  /// The template's name.
  public var name: String
  /// 0 to 1 (protocol/gestures.md, "Shapes").
  public var score: Double
  /// The centre of the drawing's bounding box.
  public var x: Double
  public var y: Double
  /// The drawing's bounding box, in the device's points (`bounds`).
  public var left: Double
  public var top: Double
  public var width: Double
  public var height: Double
  /// The regions the box's centre hit.
  public var regions: [String]

  public init(
    id: Int, t: Double, name: String, score: Double, left: Double, top: Double, width: Double, height: Double,
    regions: [String] = []
  ) {
    self.id = id
    self.t = t
    self.name = name
    self.score = score
    self.x = left + width / 2
    self.y = top + height / 2
    self.left = left
    self.top = top
    self.width = width
    self.height = height
    self.regions = regions
  }
}

/// One template of `hello.config.shapes`: a named drawing, one stroke or several, each a list
/// of `[x, y]` points in any units (matching ignores position and size).
public struct ShapeTemplate: Sendable, Equatable, Codable {
  public var name: String
  public var strokes: [[[Double]]]

  public init(name: String, strokes: [[[Double]]]) {
    self.name = name
    self.strokes = strokes
  }

  /// Templates one source may send. Each drawing is compared with every template, so this
  /// bounds one judgement's cost (per template, `shapeComparisonUs` in the engine's bench).
  public static let maxTemplates = 64
  /// Points one template may have, over all its strokes (it is resampled to 32 points once,
  /// at the hello; this bounds that work and the hello's size).
  public static let maxPointsPerTemplate = 1024
  /// Strokes one template may have.
  public static let maxStrokes = 16
  /// Bytes of a template's name.
  public static let maxNameLength = 64

  /// The first thing wrong with `shapes`, as the `bad_value` the source gets, or nil.
  static func validate(_ shapes: [ShapeTemplate]) -> ProtocolError? {
    if shapes.count > maxTemplates {
      return ProtocolError(.badValue, "config.shapes: at most \(maxTemplates) templates")
    }
    for (i, s) in shapes.enumerated() {
      let at = "config.shapes[\(i)]"
      if s.name.isEmpty || s.name.utf8.count > maxNameLength {
        return ProtocolError(.badValue, "\(at).name must be 1 to \(maxNameLength) bytes")
      }
      if s.strokes.isEmpty || s.strokes.count > maxStrokes {
        return ProtocolError(.badValue, "\(at).strokes must hold 1 to \(maxStrokes) strokes")
      }
      var points = 0
      var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
      for stroke in s.strokes {
        if stroke.isEmpty { return ProtocolError(.badValue, "\(at): every stroke needs a point") }
        for p in stroke {
          guard p.count == 2, p[0].isFinite, p[1].isFinite, abs(p[0]) <= 1e9, abs(p[1]) <= 1e9 else {
            return ProtocolError(.badValue, "\(at): every point must be [x, y], two finite numbers")
          }
          minX = min(minX, p[0])
          maxX = max(maxX, p[0])
          minY = min(minY, p[1])
          maxY = max(maxY, p[1])
        }
        points += stroke.count
      }
      if points > maxPointsPerTemplate {
        return ProtocolError(.badValue, "\(at): at most \(maxPointsPerTemplate) points")
      }
      // A template of one point has no size to scale to a unit box.
      if !(maxX > minX || maxY > minY) {
        return ProtocolError(.badValue, "\(at): the points must not all be the same")
      }
    }
    return nil
  }

  /// `shapeStrokeGap` and `shapeMinScore` (beside the other members' checks).
  static func validate(strokeGap: Double?, minScore: Double?) -> ProtocolError? {
    if let v = strokeGap, !(v >= 0 && v <= 60_000) {
      return ProtocolError(.badValue, "config.shapeStrokeGap must be a number from 0 to 60000")
    }
    if let v = minScore, !(v >= 0 && v <= 1) {
      return ProtocolError(.badValue, "config.shapeMinScore must be a number from 0 to 1")
    }
    return nil
  }
}

import Foundation

/// A named rectangle of a scene (the flatcube's squares), in the source's surface points.
struct SceneRegion: Equatable {
  var id: String
  var x: Double
  var y: Double
  var width: Double
  var height: Double

  /// `{"id","x","y","width","height"}` objects; entries missing a field are left out.
  static func list(_ value: Any?) -> [SceneRegion] {
    guard let items = value as? [[String: Any]] else { return [] }
    return items.compactMap { r in
      guard let id = r["id"] as? String, let x = number(r["x"]), let y = number(r["y"]),
        let w = number(r["width"]), let h = number(r["height"])
      else { return nil }
      return SceneRegion(id: id, x: x, y: y, width: w, height: h)
    }
  }

  /// A JSON number from `JSONSerialization` (an NSNumber, whether written 3 or 3.5).
  static func number(_ v: Any?) -> Double? {
    (v as? NSNumber)?.doubleValue
  }
}

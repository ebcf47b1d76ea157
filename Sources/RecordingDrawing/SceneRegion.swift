import TouchProtocol

/// A named rectangle of a scene (the flatcube's squares), in the source's surface points.
struct SceneRegion: Equatable {
  var id: String
  var x: Double
  var y: Double
  var width: Double
  var height: Double

  /// `{"id","x","y","width","height"}` objects; entries missing a field are left out.
  static func list(_ value: JSONValue?) -> [SceneRegion] {
    guard let items = value?.arrayValue else { return [] }
    return items.compactMap { r in
      guard let id = r["id"]?.stringValue, let x = r["x"]?.doubleValue, let y = r["y"]?.doubleValue,
        let w = r["width"]?.doubleValue, let h = r["height"]?.doubleValue
      else { return nil }
      return SceneRegion(id: id, x: x, y: y, width: w, height: h)
    }
  }
}

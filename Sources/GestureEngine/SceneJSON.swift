import TouchProtocol

/// Small builders for scene state, so each scene reads as its JSON shape.
enum SceneJSON {
  static func point(_ x: Double, _ y: Double) -> JSONValue { .array([.number(x), .number(y)]) }

  static func region(_ r: Region) -> JSONValue {
    .object([
      ("id", .string(r.id)), ("x", .number(r.x)), ("y", .number(r.y)), ("width", .number(r.width)),
      ("height", .number(r.height)),
    ])
  }
}

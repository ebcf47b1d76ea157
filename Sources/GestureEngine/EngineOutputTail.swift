import TouchProtocol

/// `EngineOutput`'s scene state and shapes, either, both or neither.
enum EngineOutputTail: Sendable, Equatable {
  case none
  case scene(JSONValue)
  case shapes([ShapeEvent])
  case both(JSONValue, [ShapeEvent])

  init(scene: JSONValue?, shapes: [ShapeEvent]) {
    switch (scene, shapes.isEmpty) {
    case (nil, true): self = .none
    case (let s?, true): self = .scene(s)
    case (nil, false): self = .shapes(shapes)
    case (let s?, false): self = .both(s, shapes)
    }
  }

  var scene: JSONValue? {
    switch self {
    case .scene(let s), .both(let s, _): s
    case .none, .shapes: nil
    }
  }

  var shapes: [ShapeEvent] {
    switch self {
    case .shapes(let l), .both(_, let l): l
    case .none, .scene: []
    }
  }

  var hasShapes: Bool {
    switch self {
    case .shapes, .both: true
    case .none, .scene: false
    }
  }
}

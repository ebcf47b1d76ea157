import TouchProtocol

/// What one call into the engine produced, for the server to send.
public struct EngineOutput: Sendable, Equatable {
  /// Gesture events, in order.
  public var events: [GestureEvent]
  /// Errors for the source (`unknown_touch` once per id, `too_many_fingers`, ...).
  public var errors: [ProtocolError]
  /// The scene's new state and the recognized shapes, in one member: each member is destroyed
  /// through its type's value witness after every frame, and a fourth one, for the shapes,
  /// cost a source without shapes 2.2 % per touch point (engine-instructions).
  private var tail = EngineOutputTail.none

  /// The scene's new state if it changed, else nil.
  public var scene: JSONValue? {
    get { tail.scene }
    set { tail = EngineOutputTail(scene: newValue, shapes: tail.shapes) }
  }

  /// Drawings recognized as one of the source's shapes, in order. A list of their own: a
  /// shape member on every `GestureEvent` cost every event (+2.4 % per touch point).
  public var shapes: [ShapeEvent] {
    get { tail.shapes }
    set { tail = EngineOutputTail(scene: tail.scene, shapes: newValue) }
  }

  /// Whether `shapes` has any, without making an empty list to ask.
  public var hasShapes: Bool { tail.hasShapes }

  public init(events: [GestureEvent] = [], errors: [ProtocolError] = [], scene: JSONValue? = nil) {
    self.events = events
    self.errors = errors
    if let scene { tail = .scene(scene) }
  }
}

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

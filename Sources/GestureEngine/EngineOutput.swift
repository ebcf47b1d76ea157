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

import TouchProtocol

/// What one call into the engine produced, for the server to send.
public struct EngineOutput: Sendable, Equatable {
  /// Gesture events, in order.
  public var events: [GestureEvent]
  /// Errors for the source (`unknown_touch` once per id, `too_many_fingers`, ...).
  public var errors: [ProtocolError]
  /// The scene's new state if it changed, else nil.
  public var scene: JSONValue?

  public init(events: [GestureEvent] = [], errors: [ProtocolError] = [], scene: JSONValue? = nil) {
    self.events = events
    self.errors = errors
    self.scene = scene
  }
}

import TouchProtocol

/// A `scene` message: a source's scene state. The first state of a scene carries no origin.
public struct SceneMessage: Sendable, Equatable {
  public var source: String
  public var origin: Origin?
  public var state: JSONValue

  public init(source: String, origin: Origin?, state: JSONValue) {
    self.source = source
    self.origin = origin
    self.state = state
  }

  public var scene: String? { state["scene"]?.stringValue }
}

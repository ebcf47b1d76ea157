import TouchProtocol

/// One source's scene state as a `welcome` lists it.
public struct SceneSnapshot: Sendable, Equatable {
  public var source: String
  /// The scene's state (`{"scene":"flatcube",...}`); its members depend on the scene.
  public var state: JSONValue

  public init(source: String, state: JSONValue) {
    self.source = source
    self.state = state
  }

  /// The scene's name (`flatcube`, `zoom`, `sketch`).
  public var scene: String? { state["scene"]?.stringValue }
}

import GestureEngine
import TouchProtocol

extension RelayCore.Configuration {
  /// A source's gesture processor: the engine, or the pass-through with `--no-gestures`.
  func makeProcessor(for hello: Hello) -> any GestureProcessor {
    gestures ? EngineProcessor(hello: hello, maxFingers: limits.maxFingers) : PassThroughProcessor()
  }

  /// Why a hello's scene cannot run here, if it cannot.
  func sceneRefusal(_ hello: Hello) -> ProtocolError? {
    guard let name = hello.scene else { return nil }
    guard gestures else {
      return ProtocolError(.unknownScene, "scenes need the gesture engine; this server runs with --no-gestures")
    }
    guard SourceEngine.sceneNames.contains(name) else {
      let known = SourceEngine.sceneNames.joined(separator: ", ")
      return ProtocolError(.unknownScene, "unknown scene '\(name.prefix(64))'; scenes are \(known)")
    }
    return nil
  }
}

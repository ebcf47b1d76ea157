import TouchProtocol

extension RelayConfiguration {
  /// A source's gesture processor: the engine, or the pass-through with `--no-gestures`.
  func makeProcessor(for hello: Hello) -> any GestureProcessor {
    gestures ? EngineProcessor(hello: hello, maxFingers: limits.maxFingers) : PassThroughProcessor()
  }
}

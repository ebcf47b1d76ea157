import GestureEngine
import TouchProtocol

/// The server's view of a per-source gesture engine, so `--no-gestures` can swap in the
/// pass-through without the relay code knowing. `SourceEngine` is one as it is.
protocol GestureProcessor {
  var sceneState: JSONValue? { get }
  var nextDeadline: Double? { get }
  mutating func update(hello: Hello) -> EngineOutput
  mutating func process(_ frame: Frame) -> EngineOutput
  mutating func advance(to t: Double) -> EngineOutput
  mutating func cancelAll(at t: Double) -> EngineOutput
  mutating func control(_ c: Control) -> Result<EngineOutput, ProtocolError>
}

extension SourceEngine: GestureProcessor {}

/// `--no-gestures`: the raw mirror only.
struct PassThroughProcessor: GestureProcessor {
  var sceneState: JSONValue? { nil }
  var nextDeadline: Double? { nil }
  func update(hello: Hello) -> EngineOutput { EngineOutput() }
  func process(_ frame: Frame) -> EngineOutput { EngineOutput() }
  func advance(to t: Double) -> EngineOutput { EngineOutput() }
  func cancelAll(at t: Double) -> EngineOutput { EngineOutput() }
  func control(_ c: Control) -> Result<EngineOutput, ProtocolError> {
    .failure(ProtocolError(.unknownScene, "the server runs without gestures (--no-gestures): no scene"))
  }
}

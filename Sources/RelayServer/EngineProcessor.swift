import GestureEngine
import TouchProtocol

/// The gesture engine behind the server's `GestureProcessor` seam, held in place: each call
/// forwards to the `SourceEngine` and returns the engine's own output.
final class EngineProcessor: GestureProcessor {
  private var engine: SourceEngine

  init(hello: Hello, maxFingers: Int) {
    engine = SourceEngine(hello: hello, maxFingers: maxFingers)
  }

  var sceneState: JSONValue? { engine.sceneState }
  var nextDeadline: Double? { engine.nextDeadline }
  func update(hello: Hello) -> EngineOutput { engine.update(hello: hello) }
  func process(_ frame: Frame) -> EngineOutput { engine.process(frame) }
  func advance(to t: Double) -> EngineOutput { engine.advance(to: t) }
  func cancelAll(at t: Double) -> EngineOutput { engine.cancelAll(at: t) }
  func control(_ c: Control) -> Result<EngineOutput, ProtocolError> { engine.control(c) }
}

import GestureEngine
import TouchProtocol

/// The gesture engine behind the server's `GestureProcessor` seam.
struct EngineProcessor: GestureProcessor {
  private var engine: SourceEngine

  init(hello: Hello, maxFingers: Int) {
    engine = SourceEngine(hello: hello, maxFingers: maxFingers)
  }

  var sceneState: JSONValue? { engine.sceneState }
  var nextDeadline: Double? { engine.nextDeadline }

  mutating func update(hello: Hello) -> ProcessorOutput { Self.map(engine.update(hello: hello)) }
  mutating func process(_ frame: Frame) -> ProcessorOutput { Self.map(engine.process(frame)) }
  mutating func advance(to t: Double) -> ProcessorOutput { Self.map(engine.advance(to: t)) }
  mutating func cancelAll(at t: Double) -> ProcessorOutput { Self.map(engine.cancelAll(at: t)) }
  mutating func control(_ c: Control) -> Result<ProcessorOutput, ProtocolError> {
    engine.control(c).map(Self.map)
  }

  private static func map(_ o: EngineOutput) -> ProcessorOutput {
    ProcessorOutput(events: o.events, errors: o.errors, scene: o.scene)
  }
}

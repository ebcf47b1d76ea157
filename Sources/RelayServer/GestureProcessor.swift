import GestureEngine
import TouchProtocol

/// What one source's engine returns for one input.
struct ProcessorOutput {
  var events: [GestureEvent] = []
  var errors: [ProtocolError] = []
  /// The new scene state, when it changed.
  var scene: JSONValue?
}

/// The server's view of a per-source gesture engine, so `--no-gestures` can swap in the
/// pass-through without the relay code knowing.
protocol GestureProcessor {
  var sceneState: JSONValue? { get }
  var nextDeadline: Double? { get }
  mutating func update(hello: Hello) -> ProcessorOutput
  mutating func process(_ frame: Frame) -> ProcessorOutput
  mutating func advance(to t: Double) -> ProcessorOutput
  mutating func cancelAll(at t: Double) -> ProcessorOutput
  mutating func control(_ c: Control) -> Result<ProcessorOutput, ProtocolError>
}

/// `--no-gestures`: the raw mirror only.
struct PassThroughProcessor: GestureProcessor {
  var sceneState: JSONValue? { nil }
  var nextDeadline: Double? { nil }
  func update(hello: Hello) -> ProcessorOutput { ProcessorOutput() }
  func process(_ frame: Frame) -> ProcessorOutput { ProcessorOutput() }
  func advance(to t: Double) -> ProcessorOutput { ProcessorOutput() }
  func cancelAll(at t: Double) -> ProcessorOutput { ProcessorOutput() }
  func control(_ c: Control) -> Result<ProcessorOutput, ProtocolError> {
    .failure(ProtocolError(.unknownScene, "the server runs without gestures (--no-gestures): no scene"))
  }
}

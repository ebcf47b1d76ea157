import GestureEngine
import TouchProtocol

/// `--no-gestures`: the raw mirror only.
final class PassThroughProcessor: GestureProcessor {
  var sceneState: JSONValue? { nil }
  var nextDeadline: Double? { nil }
  func update(hello: Hello) -> EngineOutput { EngineOutput() }
  func process(_ frame: Frame, scratch: inout FrameScratch) -> EngineOutput? { nil }
  func markPalms(_ frame: Frame) -> [Int64] { [] }
  func advance(to t: Double) -> EngineOutput { EngineOutput() }
  func cancelAll(at t: Double) -> EngineOutput { EngineOutput() }
  var hotState: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }
  func prefetchBuffers() {}
  func control(_ c: Control) -> Result<EngineOutput, ProtocolError> {
    .failure(ProtocolError(.unknownScene, "the server runs without gestures (--no-gestures): no scene"))
  }
}

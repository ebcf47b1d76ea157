import CPrefetch
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
  func process(_ frame: Frame, scratch: inout FrameScratch) -> EngineOutput? {
    let out = engine.process(frame, scratch: &scratch)
    return out.events.isEmpty && out.errors.isEmpty && out.scene == nil && !out.hasShapes ? nil : out
  }
  func markPalms(_ frame: Frame) -> [Int64] { engine.markPalms(frame) }
  func advance(to t: Double) -> EngineOutput { engine.advance(to: t) }
  func cancelAll(at t: Double) -> EngineOutput { engine.cancelAll(at: t) }
  func control(_ c: Control) -> Result<EngineOutput, ProtocolError> { engine.control(c) }

  /// With hundreds of sources an engine's state has left the caches by the time its next
  /// frame comes, and the engine then waits on memory line after line. Its recognizers and
  /// context, the first ~768 bytes of the engine held in this object, are asked for as the
  /// frame arrives, so the loads overlap decoding and mirroring it.
  var hotState: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: Unmanaged.passUnretained(self).toOpaque(), count: 768)
  }

  /// Called once the frame is decoded, when the engine's own lines (above) have arrived: the
  /// heap buffers they point to (fingers, the pan's history) are asked for next, to load
  /// while the frame is mirrored to observers.
  func prefetchBuffers() {
    engine.withHotBuffers { p, n in tr_prefetch(p, n) }
  }
}

import GestureEngine
import TouchProtocol

/// The server's view of a per-source gesture engine, so `--no-gestures` can swap in the
/// pass-through without the relay code knowing. A class: reading `nextDeadline` through
/// `SourceState` after every frame copied a struct engine out of its existential box, a
/// retain and a release per stored reference (ARCHITECTURE.md, "The gesture processor is a class").
protocol GestureProcessor: AnyObject {
  var sceneState: JSONValue? { get }
  var nextDeadline: Double? { get }
  func update(hello: Hello) -> EngineOutput
  /// `scratch` is the relay's one `FrameScratch`, lent to every engine in turn. Nil when the
  /// frame gave nothing to deliver (always, for the pass-through): most frames, and an empty
  /// output's three members were each destroyed through their type's value witness.
  func process(_ frame: Frame, scratch: inout FrameScratch) -> EngineOutput?
  /// The ids of the frame's palm entries (`SourceEngine.markPalms`), asked before the frame
  /// is mirrored and then given to `process`; empty for most frames (always, pass-through).
  func markPalms(_ frame: Frame) -> [Int64]
  func advance(to t: Double) -> EngineOutput
  func cancelAll(at t: Double) -> EngineOutput
  func control(_ c: Control) -> Result<EngineOutput, ProtocolError>
  /// The engine's state to start loading when a frame for it arrives (see `EngineProcessor`);
  /// empty for none. Read once, when the source joins (`SourceState.prefetchEngine`).
  var hotState: UnsafeRawBufferPointer { get }
  /// The frame is decoded: start loading the buffers the state points to.
  func prefetchBuffers()
}

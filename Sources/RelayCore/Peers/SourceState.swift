import CPrefetch
import GestureEngine
import TUIO
import TouchProtocol

/// A source peer's protocol state once it has said hello.
public final class SourceState {
  public internal(set) var info: SourceInfo
  var validator = SourceValidator()
  let engine: any GestureProcessor
  /// Server ms minus device ms on the latest frame: maps engine deadlines to server time.
  var clockOffset: Double?
  public internal(set) var lastSeq: Int64 = 0
  public internal(set) var lastT: Double = 0
  public internal(set) var lastRT: Double = 0
  /// The engine deadline (device time) the core's `DeadlineQueue` holds for it, if any.
  var armedDeadline: Double?

  /// Frames per second allowed from this source, and the `seq` of the last it refused (named
  /// in the `rate_limited` error).
  var frameGate: RateGate
  var lastRateLimitedSeq: Int64 = 0
  /// This source's frames as TUIO 2.0 bundles, from the first `format=tuio2` observer on.
  var tuio2Writer: TUIOPointerWriter?
  /// This source's frames as TUIO bundles, from the first `format=tuio` observer on (its
  /// velocities and session ids need every frame after that).
  var tuioWriter: TUIOCursorWriter?
  /// Its touches' predicted positions, fed while a `predict=MS` observer follows the session.
  var predictor = PositionPredictor()
  /// It resumed on another cluster node: it closes without `left` or a resume window.
  var handedOver = false

  /// `"source":"<id>"`, written once: every message the source causes starts with it. (A
  /// source's id is given when it joins and never changes.)
  let sourceMember: [UInt8]
  /// `engine.hotState`, kept: asking the engine for it on every frame, through the
  /// existential, retained and released the engine around the call.
  private let engineHotState: UnsafeRawBufferPointer

  init(info: SourceInfo, engine: any GestureProcessor, frameGate: RateGate) {
    self.info = info
    self.engine = engine
    self.frameGate = frameGate
    sourceMember = ServerMessage.sourceMember(info.id)
    engineHotState = engine.hotState
  }

  /// A frame for this source just arrived: start loading its engine's state.
  @inline(__always) func prefetchEngine() {
    tr_prefetch(engineHotState.baseAddress, engineHotState.count)
  }

  /// The scene's current state, if the source runs one.
  public var sceneState: JSONValue? { engine.sceneState }

  /// The origin stamped on messages caused by this source without a new frame.
  func origin(t: Double, rt: Double) -> Origin {
    Origin(source: info.id, seq: lastSeq, t: t, rt: rt, sourceMember: sourceMember)
  }
}

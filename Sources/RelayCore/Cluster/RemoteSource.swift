import GestureEngine
import TouchProtocol

/// A source on another node, as this node knows it from the bus: enough for welcomes, scene
/// snapshots after a gap, and the `cancelled` its active gestures get if its node dies.
final class RemoteSource {
  let id: String
  /// The node its connection is on.
  var node: String
  var info: SourceInfo
  /// Its scene's latest state (checked JSON), if it runs a scene.
  var sceneState: [UInt8]?
  /// Its touches' predicted positions, from its `touches` records, for this node's
  /// `predict=MS` observers (the bus carries no prediction).
  var predictor = PositionPredictor()
  var lastSeq: Int64 = 0
  var lastT: Double = 0
  var lastRT: Double = 0
  /// Gestures begun and not ended, by id: what gets `cancelled` if the source is lost.
  var active: [Int: GestureEvent] = [:]
  /// Held for `hello.resume` until then (server ms): it dropped, or its node died.
  var heldUntil: Double?
  /// The `sync` round of its node that last announced it.
  var round: UInt64 = 0
  /// Order of arrival, so welcomes list sources the same way every time.
  let order: Int

  init(id: String, node: String, info: SourceInfo, order: Int) {
    self.id = id
    self.node = node
    self.info = info
    self.order = order
  }

  func origin(t: Double, rt: Double) -> Origin {
    Origin(source: id, seq: lastSeq, t: t, rt: rt)
  }
}

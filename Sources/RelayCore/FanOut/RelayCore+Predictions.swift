import GestureEngine
import TouchProtocol

/// `predict=MS` observers: each `touches` message again, with `predicted` on its moving
/// touches (protocol/README.md, "Predicted positions"). The message observers without it get
/// is the one copied: its bytes are scanned for the entries, the source's predictor takes them
/// (time from the frame's `t`), and one copy is made per distinct MS among the observers that
/// want it, shared by all of them, only when one does.
extension RelayCore {
  /// `plain`: the `touches` message of a frame of `source` at device time `t`, as raw observers
  /// without `predict` get it; `createdAt`: its creation time (ns), kept by the copies.
  func fanOutPredicted(
    _ plain: UnsafeRawBufferPointer, t: Double, source: String, predictor: inout PositionPredictor,
    in session: Session, createdAt: Int64
  ) {
    let wants = { (obs: Peer) in
      obs.filter.predict != nil && obs.filter.format == .json && obs.filter.wants(source: source)
    }
    guard session.observers.firstIndexBorrowed(where: wants) != nil else { return }
    guard let scanned = TouchesMessageEntries(plain) else {
      // Only a record from the bus that is not quite a `touches` message: sent on as it came.
      let m = OutgoingMessage(copying: plain, headroom: headroom, supersedable: true, at: Double(createdAt) / 1e6)
      session.observers.forEachBorrowed { if wants($0) { enqueue(m, to: $0) } }
      return
    }
    predictor.take(t: t, scanned.entries)
    var made: [(ms: Int, message: OutgoingMessage)] = []
    session.observers.forEachBorrowed { obs in
      guard wants(obs), let ms = obs.filter.predict else { return }
      if let m = made.first(where: { $0.ms == ms }) { return enqueue(m.message, to: obs) }
      var predictions: [ServerMessage.Prediction] = []
      for e in scanned.entries {
        guard let p = predictor.predicted(e.id, after: Double(ms)) else { continue }
        predictions.append(ServerMessage.Prediction(end: e.end, x: p.x, y: p.y))
      }
      let m = OutgoingMessage(
        headroom: headroom, capacity: ServerMessage.predictedCapacity(plain, count: predictions.count),
        supersedable: true, createdAt: createdAt
      ) { ServerMessage.writePredicted(plain, predictions, &$0) }
      made.append((ms, m))
      enqueue(m, to: obs)
    }
  }
}

import OSC
import TUIO
import TouchProtocol

/// Fan-out to `format=tuio` observers (TUIO out over UDP, `?format=tuio` WebSockets): each
/// source frame becomes one TUIO 1.1 `/tuio/2Dcur` bundle and each gesture one
/// `/touchrelay/gesture` message, encoded once for all of them and only when one wants it.
/// `format=tuio2` observers get TUIO 2.0 `/tuio2/ptr` bundles instead, and the same gestures.
extension RelayCore {
  /// `palms`: ids of the frame's palm entries (`SourceEngine.markPalms`). TUIO has no place to
  /// mark one, and its consumers make gestures of every cursor, so a palm is no cursor: left
  /// out, as a hovering pen is, and a finger that turns palm ends as its cursor.
  func mirrorTUIO(_ frame: Frame, origin: Origin, state: SourceState, in session: Session, palms: [Int64] = []) {
    let frame =
      palms.isEmpty
      ? frame : Frame(seq: frame.seq, t: frame.t, touches: frame.touches.filter { !palms.contains($0.id) })
    let name = "touchrelay:\(state.info.id)@\(configuration.tuioHost)"
    if state.tuioWriter == nil && session.tuioObservers > 0 {
      state.tuioWriter = TUIOCursorWriter(sourceName: name)
    }
    if state.tuio2Writer == nil && session.tuio2Observers > 0 {
      state.tuio2Writer = TUIOPointerWriter(sourceName: name)
    }
    // Every frame from the first on, wanted or not: velocities and session ids need them all.
    if let bundle = state.tuioWriter?.bundle(for: frame, device: state.info.device) {
      _ = fanOut(to: session.observers, where: { $0.filter.format == .tuio && $0.filter.wants(source: origin.source) })
      {
        osc(.bundle(bundle), supersedable: true, at: origin.rt)
      }
    }
    if let bundle = state.tuio2Writer?.bundle(for: frame, device: state.info.device) {
      _ = fanOut(to: session.observers, where: { $0.filter.format == .tuio2 && $0.filter.wants(source: origin.source) })
      {
        osc(.bundle(bundle), supersedable: true, at: origin.rt)
      }
    }
  }

  func broadcastGestureTUIO(_ e: GestureEvent, origin: Origin, in session: Session) {
    guard let state = session.sources.first(where: { $0.source?.info.id == origin.source })?.source else { return }
    _ = fanOut(to: session.observers, where: {
      $0.filter.format != .json && $0.filter.wants(source: origin.source) && $0.filter.wants(e.gesture)
    }) {
      osc(
        .message(TUIOGestureMessage.message(e, source: origin.source, device: state.info.device)),
        supersedable: e.state.isSupersedable, at: origin.rt)
    }
  }

  private func osc(_ packet: OSCPacket, supersedable: Bool, at rt: Double) -> OutgoingMessage {
    var e = OSCEncoder(prefix: headroom)
    e.append(packet)
    let m = OutgoingMessage(e.bytes, headroom: headroom, supersedable: supersedable, at: rt)
    m.isBinary = true
    return m
  }
}

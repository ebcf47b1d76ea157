import GestureEngine
import TouchProtocol

/// Shapes (`EngineOutput.shapes`) fanned out as `gesture` messages, like the other gestures:
/// to JSON observers of the source that did not leave `shape` out of `?gestures=`, and over
/// the cluster bus. TUIO observers get none (TUIO's gesture message has no place for a name).
extension RelayCore {
  func deliverShapes(_ shapes: [ShapeEvent], origin: Origin, in session: Session) {
    counters.gestureEvents += shapes.count
    for s in shapes {
      var o = origin
      o.t = s.t
      func make() -> OutgoingMessage {
        deliveries.messagePool.message(
          headroom: headroom, capacity: 256 + 6 * s.name.utf8.count, supersedable: false, createdAt: o.createdAt
        ) { w in ServerMessage.write(s, origin: o, &w) }
      }
      let message = fanOut(to: session.observers, where: {
        $0.filter.format == .json && $0.filter.wants(source: o.source) && $0.filter.wants(.shape)
      }, make)
      if let node = clusterNode {
        // The bus record carries the kind (for the far node's filters) and the message as made.
        let carrier = GestureEvent(
          id: s.id, gesture: .shape, state: .recognized, t: s.t, x: s.x, y: s.y, touches: 1)
        node.publish(
          .gesture, in: session, source: o.source, origin: o, supersedable: false, gesture: carrier,
          payload: message ?? make())
      }
    }
  }
}

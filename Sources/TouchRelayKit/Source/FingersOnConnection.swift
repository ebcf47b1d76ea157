import TouchProtocol

/// The fingers one connection has told the server about. A resumed source starts a new
/// connection state on the server (protocol §4), which cancelled the fingers that were down:
/// a finger still down after a reconnect is announced again as `began`, and the end of a
/// finger this connection never announced is left out (the server would refuse it as
/// `unknown_touch`).
struct FingersOnConnection {
  private var down: Set<Int64> = []
  /// Reused for every frame, so a frame costs no set allocation.
  private var nowDown: Set<Int64> = []

  mutating func prepare(_ frame: Frame) -> Frame {
    var out = frame
    out.touches.removeAll(keepingCapacity: true)
    nowDown.removeAll(keepingCapacity: true)
    for var touch in frame.touches {
      switch touch.phase {
      case .began:
        nowDown.insert(touch.id)
      case .moved, .stationary:
        if !down.contains(touch.id) { touch.phase = .began }
        nowDown.insert(touch.id)
      case .ended, .cancelled:
        if !down.contains(touch.id) { continue }
      }
      out.touches.append(touch)
    }
    // A finger missing from a frame counts as cancelled on the server.
    swap(&down, &nowDown)
    return out
  }
}

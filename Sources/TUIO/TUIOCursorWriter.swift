import OSC
import TouchProtocol

/// One source's frames as TUIO 1.1 `/tuio/2Dcur` bundles: `source`, `alive`, one `set` per
/// finger down, `fseq`. Positions are normalized by the source's surface; velocity is in
/// surface widths (heights) per second and motion acceleration in surface units per second²,
/// as TUIO 1.1 defines them. TUIO session ids are the writer's own: a protocol touch id is
/// used again after its finger lifts, a TUIO session id never is. A hovering pen is no cursor,
/// and TUIO 1.1 has no place for a pressure or a radius.
public struct TUIOCursorWriter {
  public let sourceName: String
  private var fseq: Int32 = 0
  private var nextSessionID: Int32 = 1
  private struct Cursor {
    var session: Int32
    var x: Double
    var y: Double
    var t: Double
    var vx: Double = 0
    var vy: Double = 0
    var accel: Double = 0
  }
  private var cursors: [Int64: Cursor] = [:]
  private var order: [Int64] = []

  /// `sourceName` as TUIO 1.1's `source` message carries it: `touchrelay:s1@host`.
  public init(sourceName: String) {
    self.sourceName = sourceName
  }

  /// The bundle for `frame` of a source whose surface is `device`.
  public mutating func bundle(for frame: Frame, device: Device) -> OSCBundle {
    let w = device.width > 0 ? device.width : 1
    let h = device.height > 0 ? device.height : 1
    for touch in frame.touches {
      let x = touch.x / w
      let y = touch.y / h
      // A pen above the glass touches nothing: no cursor. One that was a cursor and is listed
      // only as hovering has left the glass (protocol §2.1): its cursor ends.
      if touch.phase.isTerminal || touch.isHovering {
        if cursors.removeValue(forKey: touch.id) != nil { order.removeAll { $0 == touch.id } }
        continue
      }
      if var c = cursors[touch.id] {
        let dt = (frame.t - c.t) / 1000
        if dt > 0 {
          let vx = (x - c.x) / dt
          let vy = (y - c.y) / dt
          let speed = (vx * vx + vy * vy).squareRoot()
          let lastSpeed = (c.vx * c.vx + c.vy * c.vy).squareRoot()
          c.accel = (speed - lastSpeed) / dt
          c.vx = vx
          c.vy = vy
          c.t = frame.t
        }
        c.x = x
        c.y = y
        cursors[touch.id] = c
      } else {
        cursors[touch.id] = Cursor(session: nextSessionID, x: x, y: y, t: frame.t)
        order.append(touch.id)
        nextSessionID = nextSessionID == Int32.max ? 1 : nextSessionID + 1
      }
    }
    fseq = fseq == Int32.max ? 1 : fseq + 1
    var messages = [OSCMessage("/tuio/2Dcur", [.string("source"), .string(sourceName)])]
    let live = order.compactMap { cursors[$0] }
    messages.append(OSCMessage("/tuio/2Dcur", [.string("alive")] + live.map { .int32($0.session) }))
    for c in live {
      messages.append(
        OSCMessage(
          "/tuio/2Dcur",
          [
            .string("set"), .int32(c.session), f32(c.x), f32(c.y), f32(c.vx), f32(c.vy), f32(c.accel),
          ]))
    }
    messages.append(OSCMessage("/tuio/2Dcur", [.string("fseq"), .int32(fseq)]))
    return OSCBundle(messages: messages)
  }

  /// A float OSC readers take: the derived speeds of two frames a microsecond apart may be
  /// beyond Float's range, and OSC readers (this relay's among them) refuse infinities.
  private func f32(_ v: Double) -> OSCArgument {
    let f = Float(v)
    return .float32(f.isFinite ? f : (v > 0 ? .greatestFiniteMagnitude : -.greatestFiniteMagnitude))
  }
}

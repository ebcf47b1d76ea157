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
  private struct Cursor {
    var x: Double
    var y: Double
    var t: Double
    var vx: Double = 0
    var vy: Double = 0
    var accel: Double = 0
  }
  private var cursors = TUIOSessionTable<Cursor>()

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
      // A pen above the glass touches nothing: no cursor (see `TUIOSessionTable`).
      cursors.apply(touch, start: { Cursor(x: x, y: y, t: frame.t) }) { c in
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
      }
    }
    fseq = fseq == Int32.max ? 1 : fseq + 1
    var messages = [OSCMessage("/tuio/2Dcur", [.string("source"), .string(sourceName)])]
    let live = cursors.live
    messages.append(OSCMessage("/tuio/2Dcur", [.string("alive")] + live.map { .int32($0.session) }))
    for (session, c) in live {
      messages.append(
        OSCMessage(
          "/tuio/2Dcur",
          [
            .string("set"), .int32(session), f32(c.x), f32(c.y), f32(c.vx), f32(c.vy), f32(c.accel),
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

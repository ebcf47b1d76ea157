import OSC
import TouchProtocol

/// One source's frames as TUIO 2.0 bundles (https://www.tuio.org/?tuio20): `/tuio2/frm`
/// (frame id, time, the surface's dimension, source), one `/tuio2/ptr` per finger down
/// (`s_id tu_id c_id x_pos y_pos angle shear radius press`), `/tuio2/alv` with the session ids
/// down. TUIO 2.0 has a place for what TUIO 1.1 has not: a pointer's `press` is the touch's
/// `pressure` (0, "no pressure data" in TUIO 2.0's examples, when it has none) and its
/// `radius` the touch's `radius` normalized by the surface's width (0 when none), as
/// `TUIOInput` reads them. A hovering pen is no pointer (TUIO 2.0 pointers touch); a pointer
/// whose touch is listed only as hovering has lifted. `tu_id` and `c_id` are 0 (type unknown,
/// no user); angle and shear 0. Session ids are the writer's own, as `TUIOCursorWriter`'s.
public struct TUIOPointerWriter {
  public let sourceName: String
  /// TUIO 2.0 frame ids are unsigned 32-bit numbers sent as `i`.
  private var frameID: UInt32 = 0
  private struct Pointer {
    var x: Double
    var y: Double
    var press: Double
    var radius: Double
  }
  private var pointers = TUIOSessionTable<Pointer>()

  /// `sourceName` as `frm`'s source: `touchrelay:s1@host`.
  public init(sourceName: String) {
    self.sourceName = sourceName
  }

  /// The bundle for `frame` of a source whose surface is `device`.
  public mutating func bundle(for frame: Frame, device: Device) -> OSCBundle {
    let w = device.width > 0 ? device.width : 1
    let h = device.height > 0 ? device.height : 1
    for touch in frame.touches {
      let now = Pointer(
        x: touch.x / w, y: touch.y / h, press: touch.details?.pressure ?? 0, radius: (touch.details?.radius ?? 0) / w)
      pointers.apply(touch, start: { now }) { $0 = now }
    }
    frameID = frameID == UInt32.max ? 1 : frameID + 1
    // The dimension: width in the upper 16 bits, height in the lower, in whole points.
    let dw = UInt32(min(65535, max(0, device.width.rounded())))
    let dh = UInt32(min(65535, max(0, device.height.rounded())))
    // Time 1 ("immediately"): a frame's `t` is the device's clock, not an NTP time.
    var messages = [
      OSCMessage(
        "/tuio2/frm",
        [
          .int32(Int32(bitPattern: frameID)), .timeTag(1), .int32(Int32(bitPattern: dw << 16 | dh)),
          .string(sourceName),
        ])
    ]
    let live = pointers.live
    for (session, p) in live {
      messages.append(
        OSCMessage(
          "/tuio2/ptr",
          [
            .int32(session), .int32(0), .int32(0), f32(p.x), f32(p.y), .float32(0), .float32(0), f32(p.radius),
            f32(p.press),
          ]))
    }
    messages.append(OSCMessage("/tuio2/alv", live.map { .int32($0.session) }))
    return OSCBundle(messages: messages)
  }

  /// A float OSC readers take (see `TUIOCursorWriter`): positions may be far outside the surface.
  private func f32(_ v: Double) -> OSCArgument {
    let f = Float(v)
    return .float32(f.isFinite ? f : (v > 0 ? .greatestFiniteMagnitude : -.greatestFiniteMagnitude))
  }
}

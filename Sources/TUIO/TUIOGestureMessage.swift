import OSC
import TouchProtocol

/// A gesture as the OSC message `/touchrelay/gesture`, for OSC clients that react to gestures
/// without recognizing them (TouchDesigner's OSC In). Arguments, in order: source (s), gesture
/// (s), state (s), id (i), x and y normalized by the source's surface (f f), touches (i); then
/// what the kind has, each only when the event carries it: taps (i), translation x y (f f,
/// normalized), velocity x y (f f, surface units per second), scale (f), rotation (f,
/// radians), rate (f), direction (s). protocol/README.md lists them per kind.
public enum TUIOGestureMessage {
  public static let address = "/touchrelay/gesture"

  public static func message(_ e: GestureEvent, source: String, device: Device) -> OSCMessage {
    let w = device.width > 0 ? device.width : 1
    let h = device.height > 0 ? device.height : 1
    var a: [OSCArgument] = [
      .string(source), .string(e.gesture.rawValue), .string(e.state.rawValue), .int32(Int32(truncatingIfNeeded: e.id)),
      f32(e.x / w), f32(e.y / h), .int32(Int32(truncatingIfNeeded: e.touches)),
    ]
    if let taps = e.taps { a.append(.int32(Int32(truncatingIfNeeded: taps))) }
    if let t = e.translation { a += [f32(t.x / w), f32(t.y / h)] }
    if let v = e.velocity { a += [f32(v.x / w), f32(v.y / h)] }
    if let s = e.scale { a.append(f32(s)) }
    if let r = e.rotation { a.append(f32(r)) }
    if let r = e.rate { a.append(f32(r)) }
    if let d = e.direction { a.append(.string(d.rawValue)) }
    return OSCMessage(address, a)
  }

  /// A finite float: OSC readers refuse infinities (the engine's values are finite; this keeps
  /// a division by a tiny surface from making one).
  static func f32(_ v: Double) -> OSCArgument {
    let f = Float(v)
    return .float32(f.isFinite ? f : 0)
  }
}

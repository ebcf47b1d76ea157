import TouchProtocol

/// Every number the engine hands out is finite. Inputs are finite (the decoder refuses
/// NaN, Infinity and overflow), but arithmetic on extreme ones is not: a velocity over a
/// sub-nanosecond interval, a translation between -1e308 and 1e308, a pinch scale from a
/// zero spread. JSON has no infinity, so such a result is clamped: ±infinity to the largest
/// finite double of its sign, NaN to 0.
enum Finite {
  @inline(__always)
  static func clamp(_ v: Double) -> Double {
    if v.isFinite { return v }
    if v.isNaN { return 0 }
    return v > 0 ? .greatestFiniteMagnitude : -.greatestFiniteMagnitude
  }

  static func clamp(_ v: Vector?) -> Vector? {
    v.map { Vector(x: clamp($0.x), y: clamp($0.y)) }
  }

  /// Clamps an event in place. Nearly every event is finite already, so it is checked first
  /// and rewritten only when something must change: the common case copies nothing.
  static func clamp(_ e: inout GestureEvent) {
    guard !isFinite(e.t, e.x, e.y, e.translation, e.velocity, e.scale, e.rotation, e.rate, e.fingers) else {
      return
    }
    e.t = clamp(e.t)
    e.x = clamp(e.x)
    e.y = clamp(e.y)
    e.translation = clamp(e.translation)
    e.velocity = clamp(e.velocity)
    e.scale = e.scale.map(clamp)
    e.rotation = e.rotation.map(clamp)
    e.rate = e.rate.map(clamp)
    if let fingers = e.fingers {
      e.fingers = fingers.map { f in
        var f = f
        f.x = clamp(f.x)
        f.y = clamp(f.y)
        return f
      }
    }
  }

  /// The event's numbers, passed one by one: handing over the event whole from `inout`
  /// storage made the compiler copy all of it.
  private static func isFinite(
    _ t: Double, _ x: Double, _ y: Double, _ translation: Vector?, _ velocity: Vector?, _ scale: Double?,
    _ rotation: Double?, _ rate: Double?, _ fingers: [GestureFinger]?
  ) -> Bool {
    guard t.isFinite, x.isFinite, y.isFinite, isFinite(translation), isFinite(velocity), scale?.isFinite ?? true,
      rotation?.isFinite ?? true, rate?.isFinite ?? true
    else { return false }
    if let fingers {
      for i in fingers.indices where !(fingers[i].x.isFinite && fingers[i].y.isFinite) { return false }
    }
    return true
  }

  private static func isFinite(_ v: Vector?) -> Bool {
    guard let v else { return true }
    return v.x.isFinite && v.y.isFinite
  }

  /// The state with every number finite; the state itself when it is (a sketch's state is
  /// large, and rebuilding it on every change would cost an allocation per line).
  static func clamped(_ v: JSONValue) -> JSONValue {
    isFinite(v) ? v : clamp(v)
  }

  static func isFinite(_ v: JSONValue) -> Bool {
    switch v {
    case .number(let d): return d.isFinite
    case .array(let a): return a.allSatisfy(isFinite)
    case .object(let members): return members.allSatisfy { isFinite($0.1) }
    default: return true
    }
  }

  static func clamp(_ v: JSONValue) -> JSONValue {
    switch v {
    case .number(let d): return d.isFinite ? v : .number(clamp(d))
    case .array(let a): return .array(a.map(clamp))
    case .object(let members): return .object(members.map { ($0.0, clamp($0.1)) })
    default: return v
    }
  }
}

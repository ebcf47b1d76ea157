import TouchProtocol

/// One gesture the engine recognized, from its first event to its last (one instant for a
/// tap or a swipe), with what a reader wants to know of it in a few characters.
struct GestureSpan {
  var id: Int
  var gesture: String
  var start: Double
  var end: Double
  /// The last state it reached: recognized, ended, cancelled, failed...
  var state: String
  var touches: Int
  /// "2×" for a double tap, "×1.25" for a pinch, "30°" for a rotation, "→" for a swipe...
  var label: String

  /// Builds the spans from the observer messages of a replay, in order of their start.
  static func spans(_ messages: [JSONValue]) -> [GestureSpan] {
    var byID: [Int: GestureSpan] = [:]
    var order: [Int] = []
    for m in messages where m["type"]?.stringValue == "gesture" {
      guard let id = m["id"]?.intValue, let gesture = m["gesture"]?.stringValue, let t = m["t"]?.doubleValue
      else { continue }
      let state = m["state"]?.stringValue ?? ""
      let touches = m["touches"]?.intValue ?? 1
      if var span = byID[id] {
        span.end = t
        span.state = state
        span.touches = max(span.touches, touches)
        span.label = label(gesture, m, start: span.start) ?? span.label
        byID[id] = span
      } else {
        order.append(id)
        byID[id] = GestureSpan(
          id: id, gesture: gesture, start: t, end: t, state: state, touches: touches,
          label: label(gesture, m, start: t) ?? "")
      }
    }
    return order.compactMap { byID[$0] }
  }

  private static func label(_ gesture: String, _ m: JSONValue, start: Double) -> String? {
    func number(_ key: String) -> Double? { m[key]?.doubleValue }
    switch gesture {
    case "tap":
      guard let taps = number("taps") else { return nil }
      return taps > 1 ? "\(Int(taps))×" : "1×"
    case "pinch":
      return number("scale").map { "×" + SVGText.fixed($0, digits: 2) }
    case "rotation":
      return number("rotation").map { SVGText.fixed($0 * 180 / .pi, digits: 0) + "°" }
    case "pan":
      guard let x = m["translation"]?["x"]?.doubleValue, let y = m["translation"]?["y"]?.doubleValue else { return nil }
      return SVGText.fixed((x * x + y * y).squareRoot(), digits: 0) + " pt"
    case "swipe":
      guard let d = m["direction"]?.stringValue else { return nil }
      return ["left": "←", "right": "→", "up": "↑", "down": "↓"][d] ?? d
    case "longpress":
      guard let t = number("t") else { return nil }
      return SVGText.fixed((t - start) / 1000, digits: 1) + " s"
    default:
      return nil
    }
  }
}

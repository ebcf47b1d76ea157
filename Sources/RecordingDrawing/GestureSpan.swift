import Foundation

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
  static func spans(_ messages: [[String: Any]]) -> [GestureSpan] {
    var byID: [Int: GestureSpan] = [:]
    var order: [Int] = []
    for m in messages where m["type"] as? String == "gesture" {
      guard let id = (m["id"] as? NSNumber)?.intValue, let gesture = m["gesture"] as? String,
        let t = (m["t"] as? NSNumber)?.doubleValue
      else { continue }
      let state = m["state"] as? String ?? ""
      let touches = (m["touches"] as? NSNumber)?.intValue ?? 1
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

  private static func label(_ gesture: String, _ m: [String: Any], start: Double) -> String? {
    func number(_ key: String) -> Double? { (m[key] as? NSNumber)?.doubleValue }
    switch gesture {
    case "tap":
      guard let taps = number("taps") else { return nil }
      return taps > 1 ? "\(Int(taps))×" : "1×"
    case "pinch":
      return number("scale").map { String(format: "×%.2f", $0) }
    case "rotation":
      return number("rotation").map { String(format: "%.0f°", $0 * 180 / .pi) }
    case "pan":
      guard let tr = m["translation"] as? [String: Any], let x = (tr["x"] as? NSNumber)?.doubleValue,
        let y = (tr["y"] as? NSNumber)?.doubleValue
      else { return nil }
      return String(format: "%.0f pt", (x * x + y * y).squareRoot())
    case "swipe":
      guard let d = m["direction"] as? String else { return nil }
      return ["left": "←", "right": "→", "up": "↑", "down": "↓"][d] ?? d
    case "longpress":
      guard let t = number("t") else { return nil }
      return String(format: "%.1f s", (t - start) / 1000)
    default:
      return nil
    }
  }
}

import TouchProtocol

/// Article 000's FlatCube: a red square and two yellow ones, overlapping, with counters.
///
/// Switch off: a one-finger tap that began inside red adds 1 to `red`; a two-finger tap with
/// one finger in each yellow square adds 1 to `yellow`. Switch on ("recognize any"): every
/// touch sequence that was not cancelled, whatever its finger count, adds 1 to `red` if any
/// finger began inside red and 1 to `yellow` if its fingers together began inside both
/// yellow squares.
struct FlatCubeScene: Sendable {
  static let name = "flatcube"
  static let red = "red"
  static let yellowLeft = "yellowLeft"
  static let yellowRight = "yellowRight"

  private(set) var red = 0
  private(set) var yellow = 0
  private(set) var recognizeAny = false
  var regions: [Region]

  init(regions: [Region]) {
    self.regions = regions
  }

  /// The layout used when the source sends no regions: squares of side s = 0.4 * min(width,
  /// height) around the surface centre (cx, cy). Red spans x cx-s/2...cx+s/2, y cy-3s/4...cy+s/4;
  /// yellowLeft x cx-3s/4...cx+s/4 and yellowRight x cx-s/4...cx+3s/4, both y cy-s/4...cy+3s/4.
  /// Every pair overlaps and all three overlap in the square of side s/2 at the centre.
  static func defaultRegions(_ d: Device) -> [Region] {
    let s = 0.4 * min(d.width, d.height)
    let cx = d.width / 2
    let cy = d.height / 2
    return [
      Region(id: red, x: cx - s / 2, y: cy - 0.75 * s, width: s, height: s),
      Region(id: yellowLeft, x: cx - 0.75 * s, y: cy - s / 4, width: s, height: s),
      Region(id: yellowRight, x: cx - s / 4, y: cy - s / 4, width: s, height: s),
    ]
  }

  /// Returns true when the state changed.
  mutating func consume(_ note: ArenaNote, deferredTaps: Bool) -> Bool {
    switch note {
    case .gesture(let e) where !recognizeAny && e.gesture == .tap:
      guard let fingers = e.fingers else { return false }
      // Deferred mode reports a sequence once with its count; immediate mode every tap.
      let n = deferredTaps ? (e.taps ?? 1) : 1
      if e.touches == 1, fingers[0].regions.contains(Self.red) {
        red += n
        return true
      }
      if e.touches == 2, Self.oneInEachYellow(fingers[0].regions, fingers[1].regions) {
        yellow += n
        return true
      }
      return false
    case .sequenceEnded(let seq) where recognizeAny && !seq.cancelled:
      let began = Set(seq.members.flatMap(\.downRegions))
      var changed = false
      if began.contains(Self.red) {
        red += 1
        changed = true
      }
      if began.contains(Self.yellowLeft) && began.contains(Self.yellowRight) {
        yellow += 1
        changed = true
      }
      return changed
    default:
      return false
    }
  }

  private static func oneInEachYellow(_ a: [String], _ b: [String]) -> Bool {
    (a.contains(yellowLeft) && b.contains(yellowRight))
      || (a.contains(yellowRight) && b.contains(yellowLeft))
  }

  mutating func control(_ c: Control) -> Result<Bool, ProtocolError> {
    var changed = false
    if let action = c.action {
      guard action == "reset" else {
        return .failure(
          ProtocolError(
            .unknownAction, "flatcube has no action '\(action.prefix(64))'; it has 'reset'"))
      }
      changed = red != 0 || yellow != 0
      red = 0
      yellow = 0
    }
    if let on = c.recognizeAny, on != recognizeAny {
      recognizeAny = on
      changed = true
    }
    return .success(changed)
  }

  var state: JSONValue {
    .object([
      ("scene", .string(Self.name)),
      ("counters", .object([("red", .number(Double(red))), ("yellow", .number(Double(yellow)))])),
      ("recognizeAny", .bool(recognizeAny)),
      ("regions", .array(regions.map(SceneJSON.region))),
    ])
  }
}

import TouchProtocol

/// What every recognizer reads and writes: settings, regions, the fingers, the current
/// sequence and the event log. Recognizers get it `inout` from the arena.
struct GestureContext: Sendable {
  var settings: GestureSettings
  var regions: RegionMap
  var table = IdentityTable()
  var sequence = TouchSequence(startT: 0)
  var log = EventLog()

  init(settings: GestureSettings, regions: RegionMap) {
    self.settings = settings
    self.regions = regions
  }

  func enabled(_ kind: GestureKind) -> Bool { settings.enabled.contains(kind) }

  /// The fingers down now, with the regions their current positions hit, in a list the log
  /// recycles (`EventLog.fingersList`).
  mutating func currentFingers() -> [GestureFinger] {
    var list = log.fingersList()
    for f in table.fingers {
      list.append(GestureFinger(id: f.id, x: f.x, y: f.y, regions: regions.hit(f.x, f.y)))
    }
    return list
  }

  func event(
    _ id: Int, _ kind: GestureKind, _ state: GestureState, t: Double, x: Double, y: Double,
    touches: Int, fingers: [GestureFinger]
  ) -> GestureEvent {
    GestureEvent(
      id: id, gesture: kind, state: state, t: t, x: x, y: y, touches: touches,
      regions: regions.hit(x, y), fingers: fingers)
  }
}

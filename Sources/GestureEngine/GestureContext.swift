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

  /// The fingers down now, with the regions their current positions hit.
  func currentFingers() -> [GestureFinger] {
    table.fingers.map {
      GestureFinger(id: $0.id, x: $0.x, y: $0.y, regions: regions.hit($0.x, $0.y))
    }
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

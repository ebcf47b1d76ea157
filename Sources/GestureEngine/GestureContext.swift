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

  // Both inlined: called from a recognizer's `event`, they were handed a copy of the whole
  // context (a memcpy per event, of lines nothing else in the frame read).
  /// The fingers down now, with the regions their current positions hit.
  @inline(__always) func currentFingers() -> [GestureFinger] {
    table.fingers.map {
      GestureFinger(id: $0.id, x: $0.x, y: $0.y, regions: regions.hit($0.x, $0.y))
    }
  }

  @inline(__always) func event(
    _ id: Int, _ kind: GestureKind, _ state: GestureState, t: Double, x: Double, y: Double,
    touches: Int, fingers: [GestureFinger]
  ) -> GestureEvent {
    GestureEvent(
      id: id, gesture: kind, state: state, t: t, x: x, y: y, touches: touches,
      regions: regions.hit(x, y), fingers: fingers)
  }
}

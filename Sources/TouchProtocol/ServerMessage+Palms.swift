extension ServerMessage {
  /// A `touches` array whose palm entries (their ids in `palms`) carry `"palm":true` after the
  /// source's own members (gestures.md, "Palm rejection"). Every other entry is exactly what
  /// `write(_:_:)` writes for it, and that is the source's own text whenever the server would
  /// have copied it: only the palm entries differ from an unmarked mirror.
  static func write(_ touches: [TouchPoint], markingPalms palms: [Int64], _ w: inout JSONWriter) {
    w.beginArray()
    for p in touches {
      w.beginObject()
      writeMembers(p, &w)
      if palms.contains(p.id) {
        w.key("palm")
        w.bool(true)
      }
      w.endObject()
    }
    w.endArray()
  }
}

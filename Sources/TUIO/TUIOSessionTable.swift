import TouchProtocol

/// The touches a TUIO writer has down, each with its TUIO session id, in the order they landed:
/// what `TUIOCursorWriter` and `TUIOPointerWriter` share. Session ids are the table's own: a
/// protocol touch id is used again after its finger lifts, a TUIO session id never is (until
/// it wraps past `Int32.max`). A hovering pen is no cursor or pointer; one that was and is now
/// listed only as hovering has left the glass (protocol §2.1).
struct TUIOSessionTable<Entry> {
  private var entries: [Int64: (session: Int32, entry: Entry)] = [:]
  private var order: [Int64] = []
  private var nextSessionID: Int32 = 1

  /// Applies `touch`: false when it ended or hovers (its entry is gone, if it had one);
  /// otherwise `update` changes its entry, `Entry` made by `start` if it just landed.
  mutating func apply(_ touch: TouchPoint, start: () -> Entry, update: (inout Entry) -> Void) {
    if touch.phase.isTerminal || touch.isHovering {
      if entries.removeValue(forKey: touch.id) != nil { order.removeAll { $0 == touch.id } }
      return
    }
    if entries[touch.id] == nil {
      entries[touch.id] = (nextSessionID, start())
      order.append(touch.id)
      nextSessionID = nextSessionID == Int32.max ? 1 : nextSessionID + 1
    } else {
      update(&entries[touch.id]!.entry)
    }
  }

  /// The entries down, in the order they landed, with their session ids.
  var live: [(session: Int32, entry: Entry)] { order.compactMap { entries[$0] } }
}

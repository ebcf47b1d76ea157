import TouchProtocol

/// What one frame does to the fingers, sorted into the order the arena applies it:
/// cancellations, then new positions, then lifts, then new fingers.
struct FramePlan: Sendable {
  /// Fingers that are down and end abnormally: `cancelled`, missing from the frame, or
  /// `began` again while down.
  var cancels: [Int64] = []
  /// New positions (moved, stationary and ended touches) of fingers that are down.
  var updates: [TouchPoint] = []
  /// Fingers that lift (`ended`), after their last position was applied.
  var ends: [Int64] = []
  /// New fingers, already limited to the finger limit.
  var begins: [TouchPoint] = []
  var errors: [ProtocolError] = []

  /// Empties every list for the next frame. The lists keep their buffers (most are empty most
  /// frames, which costs a check here). The errors are not among them: `GestureArena.apply`
  /// moves them out into the frame's output first.
  mutating func removeAll() {
    cancels.removeAllKeepingStorage()
    updates.removeAllKeepingStorage()
    ends.removeAllKeepingStorage()
    begins.removeAllKeepingStorage()
  }
}

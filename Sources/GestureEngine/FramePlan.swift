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

  /// Empties every list and keeps the buffers, for the next frame.
  mutating func removeAll() {
    cancels.removeAll(keepingCapacity: true)
    updates.removeAll(keepingCapacity: true)
    ends.removeAll(keepingCapacity: true)
    begins.removeAll(keepingCapacity: true)
    errors.removeAll(keepingCapacity: true)
  }
}

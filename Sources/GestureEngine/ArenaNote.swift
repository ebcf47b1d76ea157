import TouchProtocol

/// One thing that happened inside the arena, in order. Scenes read the whole stream (a sketch
/// draws with raw fingers, flatcube's "recognize any" counts sequences); the engine's output
/// keeps only the gesture events.
enum ArenaNote: Sendable {
  case gesture(GestureEvent)
  /// `pressure`: the touch's (protocol §2.1), NaN when it has none; the sketch's width follows it.
  case fingerLanded(id: Int64, x: Double, y: Double, pressure: Double)
  case fingerMoved(id: Int64, x: Double, y: Double, pressure: Double)
  /// `tapSlop` is true when the finger never left the tap tolerance (a tap or a press).
  case fingerLifted(id: Int64, tapSlop: Bool)
  case fingerCancelled(id: Int64)
  case sequenceEnded(TouchSequence)
}

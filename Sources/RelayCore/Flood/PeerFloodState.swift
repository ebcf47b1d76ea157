/// One peer's side of the flood rules (`FloodRules`): whether it is read, its `control` rate,
/// the errors it was sent in the current window (`RelayCore.erred`), and whether it is listed
/// as owed a rate-limit report (`FloodState.reportsOwed`).
struct PeerFloodState {
  /// Paused while it floods; stopped once the server closes it for what it sent.
  var reading = ReadState.reading
  /// `control` messages per second this peer may send (made at its first control).
  var controlGate: RateGate?
  var errorWindow = WindowCount()
  var owesReport = false
}

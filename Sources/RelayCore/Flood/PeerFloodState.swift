/// One peer's side of the flood rules (`FloodRules`): its `control` rate, the errors it was
/// sent in the current window (`RelayCore.erred`), and whether it is listed as owed a
/// rate-limit report (`FloodState.reportsOwed`).
struct PeerFloodState {
  /// `control` messages per second this peer may send (made at its first control).
  var controlGate: RateGate?
  var errorWindow = WindowCount()
  var owesReport = false
}

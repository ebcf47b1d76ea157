/// The flood rules' lists of peers (`FloodRules`): those whose reading is paused, due back at
/// the timer `.readersResume`, and those owed a rate-limit report, due at `.reportsDue`.
struct FloodState {
  var pausedReaders: [Peer] = []
  var reportsOwed: [Peer] = []
}

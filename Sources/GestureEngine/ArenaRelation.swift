/// How one arena member's claim treats another (UIKit's and Flutter's vocabulary).
enum ArenaRelation: Sendable, Equatable {
  /// Neither affects the other: both may recognize in one sequence (UIKit's
  /// `shouldRecognizeSimultaneouslyWith`).
  case runsWith
  /// The claimant wins over the other: when the claim goes through, the other is cancelled if
  /// active, fails if possible, and may not claim again until every finger is up.
  case excludes
  /// The claimant may begin only once the other has failed (UIKit's `require(toFail:)`). The
  /// engine reports as things happen and cannot wait, so a rival still possible is made to
  /// fail at that moment, and what it held (a waiting tap sequence) is reported first; a rival
  /// already active runs on.
  case requiresFailureOf
}

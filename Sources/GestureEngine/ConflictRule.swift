/// One row of a `ConflictTable`: how a member's claim treats the others. A member named in
/// neither set runs with the claimant.
struct ConflictRule: Sendable, Equatable {
  var excludes: RecognizerSet = []
  var requiresFailureOf: RecognizerSet = []

  init(excludes: RecognizerSet = [], requiresFailureOf: RecognizerSet = []) {
    precondition(
      excludes.intersection(requiresFailureOf).isEmpty,
      "a member either excludes a rival or requires its failure, not both")
    self.excludes = excludes
    self.requiresFailureOf = requiresFailureOf
  }
}

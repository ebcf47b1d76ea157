/// What an arena runs: its recognizers, in the order it asks them, and the conflict policy
/// between them (one `ConflictRule` per member, in the same order). Static data: an arena reads
/// the rule of a member only when that member claims.
protocol RecognizerTable {
  associatedtype Members: RecognizerList
  static var conflicts: ConflictTable { get }
}

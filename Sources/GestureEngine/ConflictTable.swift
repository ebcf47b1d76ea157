/// The arena's conflict policy as data: one `ConflictRule` per member, in table order. What
/// happens between two gestures is read here, never from the order of the arena's calls.
struct ConflictTable: Sendable, Equatable {
  private(set) var rules: [ConflictRule]

  init(_ rules: [ConflictRule]) {
    precondition(rules.count <= 16, "an arena table has at most 16 members")
    for (slot, rule) in rules.enumerated() {
      precondition(
        !rule.excludes.contains(slot: slot) && !rule.requiresFailureOf.contains(slot: slot),
        "a member's rule names itself")
      precondition(
        rule.excludes.union(rule.requiresFailureOf).isSubset(of: .all(rules.count)),
        "a rule names a member the table does not have")
    }
    self.rules = rules
  }

  var count: Int { rules.count }

  subscript(slot: Int) -> ConflictRule { rules[slot] }

  /// How `claimant`'s claim treats `other` (each one member of the table).
  func relation(of claimant: RecognizerSet, to other: RecognizerSet) -> ArenaRelation {
    let rule = rules[claimant.slot]
    if rule.excludes.isSuperset(of: other) { return .excludes }
    if rule.requiresFailureOf.isSuperset(of: other) { return .requiresFailureOf }
    return .runsWith
  }

  /// The same table with one relation changed.
  func setting(_ relation: ArenaRelation, of claimant: RecognizerSet, to other: RecognizerSet) -> ConflictTable {
    var next = rules
    next[claimant.slot].excludes.remove(other)
    next[claimant.slot].requiresFailureOf.remove(other)
    switch relation {
    case .runsWith: break
    case .excludes: next[claimant.slot].excludes.insert(other)
    case .requiresFailureOf: next[claimant.slot].requiresFailureOf.insert(other)
    }
    return ConflictTable(next)
  }

  /// The same table with a member added at the end.
  func appending(_ rule: ConflictRule) -> ConflictTable { ConflictTable(rules + [rule]) }
}

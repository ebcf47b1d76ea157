/// A set of arena members, one bit per place in a `RecognizerTable` (the first member is bit
/// 0): whom a claim excludes or requires the failure of, and whom a touch sequence has
/// excluded so far. A bit mask, so the arena's questions cost an `and`.
struct RecognizerSet: OptionSet, Sendable, Hashable {
  let rawValue: UInt16

  init(rawValue: UInt16) { self.rawValue = rawValue }

  /// The member at `slot` (0-based place in the table).
  init(slot: Int) {
    precondition((0..<16).contains(slot), "an arena table has at most 16 members")
    rawValue = 1 << UInt16(slot)
  }

  /// The place of a set of one member.
  var slot: Int {
    precondition(rawValue.nonzeroBitCount == 1, "not one member")
    return rawValue.trailingZeroBitCount
  }

  func contains(slot: Int) -> Bool { rawValue & (1 << UInt16(truncatingIfNeeded: slot)) != 0 }

  /// Every member of a table of `count`.
  static func all(_ count: Int) -> RecognizerSet { RecognizerSet(rawValue: UInt16((1 << count) - 1)) }
}

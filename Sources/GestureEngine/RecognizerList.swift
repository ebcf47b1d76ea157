/// The recognizers of an arena as one value, in table order: a `TableEntry` per recognizer,
/// ending in `EndOfTable`. Each call runs the hook on every member in order, resolved at
/// compile time (every member's type is known), so the arena's loops over its members cost
/// what calling each one by name did.
///
/// The hooks that may claim run the members from `first` on and stop at the first that claims,
/// returning its place: the arena settles that claim before the members after it are asked.
/// `slot` is the place of this list's first member in the whole table.
protocol RecognizerList: Sendable {
  init()
  /// Members in the list.
  static var count: Int { get }

  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext)
  mutating func fingerJoined(t: Double, ctx: inout GestureContext)
  mutating func fingersMoved(from first: Int, slot: Int, t: Double, ctx: inout GestureContext) -> Int?
  mutating func allFingersLifting(_ ends: [Int64], t: Double, ctx: inout GestureContext)
  mutating func fingerLifting(
    _ f: Finger, last: Bool, from first: Int, slot: Int, t: Double, ctx: inout GestureContext
  ) -> Int?
  mutating func fingerLeft(t: Double, ctx: inout GestureContext)

  /// The earliest pending timer of any member.
  func deadline(ctx: GestureContext) -> Double?
  /// Fires the first member whose timer is due at `d`; returns its place if it claims.
  mutating func fire(due d: Double, slot: Int, ctx: inout GestureContext) -> Int?

  /// Accepts the claim of the member at `target`.
  mutating func accept(_ target: Int, slot: Int, t: Double, ctx: inout GestureContext)
  /// Rejects the member at `target`.
  mutating func reject(_ target: Int, slot: Int, t: Double, ctx: inout GestureContext)
  /// In table order, cancels the members in `cancelling` and rejects those in `rejecting`.
  mutating func settle(
    cancelling: RecognizerSet, rejecting: RecognizerSet, slot: Int, t: Double, ctx: inout GestureContext)

  func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void)
  /// The first member of type `R` (tests read a member's state through it).
  func member<R: GestureRecognizer>(_ type: R.Type) -> R?
}

@testable import GestureEngine
import Testing
import TouchProtocol

/// The arena's conflict policy is its table: these tests read the standard table, change one
/// entry of it and add a recognizer to it, and check what the arena then reports.
@Suite struct ArenaTableTests {
  typealias S = StandardTable

  @Test func theStandardTableIsTheDocumentedArena() {
    let c = S.conflicts
    // protocol/gestures.md, "Arena": simultaneous pairs.
    #expect(c.relation(of: S.longPress, to: S.pan) == .runsWith)
    #expect(c.relation(of: S.pan, to: S.longPress) == .runsWith)
    #expect(c.relation(of: S.pinch, to: S.rotation) == .runsWith)
    #expect(c.relation(of: S.rotation, to: S.pinch) == .runsWith)
    #expect(c.relation(of: S.pan, to: S.swipe) == .runsWith)
    // Pinch and rotation claim the sequence.
    for claimant in [S.pinch, S.rotation] {
      for other in [S.tap, S.longPress, S.pan, S.swipe] {
        #expect(c.relation(of: claimant, to: other) == .excludes)
      }
    }
    // A multi-finger tap's claim: no one-finger gesture after it, a pinch may still come.
    for other in [S.longPress, S.pan, S.swipe] { #expect(c.relation(of: S.tap, to: other) == .excludes) }
    #expect(c.relation(of: S.tap, to: S.pinch) == .runsWith)
    // Require to fail: a pan or long press makes the press fail as a tap first.
    #expect(c.relation(of: S.pan, to: S.tap) == .requiresFailureOf)
    #expect(c.relation(of: S.longPress, to: S.tap) == .requiresFailureOf)
    #expect(c.relation(of: S.longPress, to: S.swipe) == .excludes)
    #expect(S.conflicts.count == S.Members.count)
  }

  @Test func theTableNamesEachMemberByItsPlace() {
    let members = S.Members()
    #expect(members.member(TapRecognizer.self) != nil)
    var d = ArenaDriver<S>()
    // A long press held, to see it at the place the table gives it.
    d.frame(0, [(1, .began, 100, 100)])
    d.advance(to: 600)
    #expect(d.events.map(\.gesture) == [.longpress])
    #expect(d.arena.members.member(LongPressRecognizer.self)?.state == .began)
    #expect(S.longPress.slot == 3 && S.pan.slot == 4)
  }

  // A pan whose threshold is inside the tap tolerance: the standard table makes the press
  // fail as a tap when the pan begins; with the pan running with taps, the press is a tap too.
  @Test func aPanThatRunsWithTapsLetsTheSamePressBeATap() {
    var config = GestureConfig()
    config.panThreshold = 2
    config.tapMode = "immediate"
    var standard = ArenaDriver<S>(config: config)
    standard.shortDrag()
    #expect(standard.kinds == ["pan.began", "pan.changed", "pan.ended"])

    var relaxed = ArenaDriver<PanRunsWithTap>(config: config)
    relaxed.shortDrag()
    #expect(relaxed.kinds == ["pan.began", "pan.changed", "pan.ended", "tap.recognized"])
  }

  // Two fingers that drag and spread: the standard pinch cancels the pan it meets; a pinch
  // that runs with pans leaves it to its end.
  @Test func aPinchThatRunsWithPansLeavesThePanRunning() {
    var standard = ArenaDriver<S>()
    standard.dragAndSpread()
    #expect(standard.kinds.contains("pan.cancelled"))
    #expect(!standard.kinds.contains("pan.ended"))
    #expect(standard.kinds.firstIndex(of: "pan.cancelled")! < standard.kinds.firstIndex(of: "pinch.began")!)

    var relaxed = ArenaDriver<PinchRunsWithPan>()
    relaxed.dragAndSpread()
    #expect(!relaxed.kinds.contains("pan.cancelled"))
    #expect(relaxed.kinds.contains("pan.ended") && relaxed.kinds.contains("pinch.ended"))
  }

  // A recognizer the engine does not have, added by one entry: its claim (three fingers down
  // and moving) excludes the pan, which then never begins, and the pan's own rule still holds
  // for the rest (a long press is not affected).
  @Test func aRecognizerAddedByOneEntryTakesPartInTheArena() {
    var standard = ArenaDriver<S>()
    standard.threeFingerDrag()
    #expect(standard.kinds.first == "pan.began")

    var extended = ArenaDriver<TableWithThreeFingerPress>()
    extended.threeFingerDrag()
    #expect(extended.arena.members.member(ThreeFingerPress.self)?.accepted == true)
    #expect(!extended.kinds.contains { $0.hasPrefix("pan.") })

    // Its own entry changed to run with pans: the pan is back, and the press still claims.
    var together = ArenaDriver<TableWithThreeFingerPressBesidePans>()
    together.threeFingerDrag()
    #expect(together.kinds.first == "pan.began")
    #expect(together.arena.members.member(ThreeFingerPress.self)?.accepted == true)
  }

  // Without its entry's exclusion the new member claims but settles nothing: the same events
  // as the standard table.
  @Test func aNewMemberThatRunsWithEveryoneChangesNothing() {
    var standard = ArenaDriver<S>()
    standard.threeFingerDrag()
    var neutral = ArenaDriver<TableWithNeutralThreeFingerPress>()
    neutral.threeFingerDrag()
    #expect(neutral.events == standard.events)
  }

  /// The standard table with one entry changed: a pan runs with taps.
  enum PanRunsWithTap: RecognizerTable {
    typealias Members = S.Members
    static let conflicts = S.conflicts.setting(.runsWith, of: S.pan, to: S.tap)
  }

  /// The standard table with one entry changed: a pinch runs with pans.
  enum PinchRunsWithPan: RecognizerTable {
    typealias Members = S.Members
    static let conflicts = S.conflicts.setting(.runsWith, of: S.pinch, to: S.pan)
  }

  /// A recognizer of the tests' own: three fingers down and moving claim the sequence.
  struct ThreeFingerPress: GestureRecognizer {
    var possible = false
    var accepted = false

    mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {
      possible = true
      accepted = false
    }

    mutating func fingersMoved(t: Double, ctx: inout GestureContext) -> Bool {
      possible && ctx.table.count == 3
    }

    mutating func accept(at t: Double, ctx: inout GestureContext) {
      possible = false
      accepted = true
    }

    mutating func reject(at t: Double, ctx: inout GestureContext) { possible = false }
  }

  /// The standard members and one more at the end.
  typealias MembersWithThreeFingerPress =
    TableEntry<TapRecognizer,
    TableEntry<PinchRecognizer,
    TableEntry<RotationRecognizer,
    TableEntry<LongPressRecognizer,
    TableEntry<PanRecognizer,
    TableEntry<SwipeRecognizer,
    TableEntry<ThreeFingerPress,
    EndOfTable>>>>>>>

  enum TableWithThreeFingerPress: RecognizerTable {
    typealias Members = MembersWithThreeFingerPress
    static let conflicts = S.conflicts.appending(ConflictRule(excludes: [S.pan]))
  }

  enum TableWithThreeFingerPressBesidePans: RecognizerTable {
    typealias Members = MembersWithThreeFingerPress
    static let conflicts = TableWithThreeFingerPress.conflicts.setting(
      .runsWith, of: RecognizerSet(slot: 6), to: S.pan)
  }

  enum TableWithNeutralThreeFingerPress: RecognizerTable {
    typealias Members = MembersWithThreeFingerPress
    static let conflicts = S.conflicts.appending(ConflictRule())
  }
}

import TouchProtocol

/// The one interface every recognizer has to the arena (`GestureArena`), modelled on Flutter's
/// gesture arena members and UIKit's recognizers. The arena tells a recognizer what the fingers
/// did; a recognizer that wants the touch sequence says so by returning true from one of the
/// three hooks that may claim (`fingersMoved`, `fingerLifting`, `fire`), and the arena settles
/// the claim by its conflict table (`RecognizerTable.conflicts`): it cancels the claimant's
/// excluded rivals, makes the ones whose failure it requires fail, and then accepts it. A
/// recognizer never calls another.
///
/// Every hook has a default that does nothing, so a recognizer implements only the moments it
/// cares about. The arena calls the hooks of all recognizers in table order, generically (see
/// `RecognizerList`): no existential, no allocation per call.
protocol GestureRecognizer: Sendable {
  init()

  /// The first finger of a touch sequence landed (`f`, already in the table).
  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext)
  /// Another finger landed (already in the table and the sequence).
  mutating func fingerJoined(t: Double, ctx: inout GestureContext)
  /// The fingers down have new positions (or the frame repeated them). Returns true to claim.
  mutating func fingersMoved(t: Double, ctx: inout GestureContext) -> Bool
  /// Every finger lifts in this frame (`ends`: the lifting ids), before any is removed: the
  /// continuous gestures end once, with all of them.
  mutating func allFingersLifting(_ ends: [Int64], t: Double, ctx: inout GestureContext)
  /// `f` lifts, still in the table; `last` when no other finger is down. Returns true to claim.
  mutating func fingerLifting(_ f: Finger, last: Bool, t: Double, ctx: inout GestureContext) -> Bool
  /// A finger lifted and others are still down.
  mutating func fingerLeft(t: Double, ctx: inout GestureContext)

  /// This recognizer's pending timer, device ms.
  func deadline(ctx: GestureContext) -> Double?
  /// Its timer is due (`t` is the deadline). Returns true to claim. Afterwards the deadline
  /// must be gone or later (a refused claim is followed by `reject`), or it would fire again.
  mutating func fire(at t: Double, ctx: inout GestureContext) -> Bool

  /// The arena accepted its claim (a continuous gesture begins, a discrete one is reported).
  mutating func accept(at t: Double, ctx: inout GestureContext)
  /// It may not recognize in this sequence any more: a rival it waited on won, or its claim
  /// was refused. A possible recognizer fails; what it holds (a waiting tap) is settled.
  mutating func reject(at t: Double, ctx: inout GestureContext)
  /// A rival that excludes it won, or a finger was cancelled: an active gesture is cancelled,
  /// a possible one fails.
  mutating func cancel(at t: Double, ctx: inout GestureContext)

  /// Hands `body` the heap buffers its next `fingersMoved` reads (see
  /// `SourceEngine.withHotBuffers`).
  func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void)
}

extension GestureRecognizer {
  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {}
  mutating func fingerJoined(t: Double, ctx: inout GestureContext) {}
  mutating func fingersMoved(t: Double, ctx: inout GestureContext) -> Bool { false }
  mutating func allFingersLifting(_ ends: [Int64], t: Double, ctx: inout GestureContext) {}
  mutating func fingerLifting(_ f: Finger, last: Bool, t: Double, ctx: inout GestureContext) -> Bool {
    false
  }
  mutating func fingerLeft(t: Double, ctx: inout GestureContext) {}
  func deadline(ctx: GestureContext) -> Double? { nil }
  mutating func fire(at t: Double, ctx: inout GestureContext) -> Bool { false }
  mutating func accept(at t: Double, ctx: inout GestureContext) {}
  mutating func reject(at t: Double, ctx: inout GestureContext) {}
  mutating func cancel(at t: Double, ctx: inout GestureContext) { reject(at: t, ctx: &ctx) }
  func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void) {}
}

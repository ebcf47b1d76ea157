/// One member of a `RecognizerList` and the members after it (see `RecognizerList`).
/// Everything is inlined: after specialization a hook over the list is the members' hooks one
/// after another.
struct TableEntry<Recognizer: GestureRecognizer, Rest: RecognizerList>: RecognizerList {
  var recognizer = Recognizer()
  var rest = Rest()

  init() {}

  static var count: Int { 1 + Rest.count }

  @inline(__always)
  mutating func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {
    recognizer.sequenceBegan(f, t: t, ctx: &ctx)
    rest.sequenceBegan(f, t: t, ctx: &ctx)
  }

  @inline(__always)
  mutating func fingerJoined(t: Double, ctx: inout GestureContext) {
    recognizer.fingerJoined(t: t, ctx: &ctx)
    rest.fingerJoined(t: t, ctx: &ctx)
  }

  @inline(__always)
  mutating func fingersMoved(from first: Int, slot: Int, t: Double, ctx: inout GestureContext) -> Int? {
    if slot >= first, recognizer.fingersMoved(t: t, ctx: &ctx) { return slot }
    return rest.fingersMoved(from: first, slot: slot + 1, t: t, ctx: &ctx)
  }

  @inline(__always)
  mutating func allFingersLifting(_ ends: [Int64], t: Double, ctx: inout GestureContext) {
    recognizer.allFingersLifting(ends, t: t, ctx: &ctx)
    rest.allFingersLifting(ends, t: t, ctx: &ctx)
  }

  @inline(__always)
  mutating func fingerLifting(
    _ f: Finger, last: Bool, from first: Int, slot: Int, t: Double, ctx: inout GestureContext
  ) -> Int? {
    if slot >= first, recognizer.fingerLifting(f, last: last, t: t, ctx: &ctx) { return slot }
    return rest.fingerLifting(f, last: last, from: first, slot: slot + 1, t: t, ctx: &ctx)
  }

  @inline(__always)
  mutating func fingerLeft(t: Double, ctx: inout GestureContext) {
    recognizer.fingerLeft(t: t, ctx: &ctx)
    rest.fingerLeft(t: t, ctx: &ctx)
  }

  @inline(__always)
  func deadline(ctx: GestureContext) -> Double? {
    let mine = recognizer.deadline(ctx: ctx)
    guard let theirs = rest.deadline(ctx: ctx) else { return mine }
    guard let mine else { return theirs }
    return min(mine, theirs)
  }

  @inline(__always)
  mutating func fire(due d: Double, slot: Int, ctx: inout GestureContext) -> Int? {
    if let mine = recognizer.deadline(ctx: ctx), mine == d {
      return recognizer.fire(at: d, ctx: &ctx) ? slot : nil
    }
    return rest.fire(due: d, slot: slot + 1, ctx: &ctx)
  }

  @inline(__always)
  mutating func accept(_ target: Int, slot: Int, t: Double, ctx: inout GestureContext) {
    if target == slot {
      recognizer.accept(at: t, ctx: &ctx)
    } else {
      rest.accept(target, slot: slot + 1, t: t, ctx: &ctx)
    }
  }

  @inline(__always)
  mutating func reject(_ target: Int, slot: Int, t: Double, ctx: inout GestureContext) {
    if target == slot {
      recognizer.reject(at: t, ctx: &ctx)
    } else {
      rest.reject(target, slot: slot + 1, t: t, ctx: &ctx)
    }
  }

  @inline(__always)
  mutating func settle(
    cancelling: RecognizerSet, rejecting: RecognizerSet, slot: Int, t: Double, ctx: inout GestureContext
  ) {
    if cancelling.contains(slot: slot) {
      recognizer.cancel(at: t, ctx: &ctx)
    } else if rejecting.contains(slot: slot) {
      recognizer.reject(at: t, ctx: &ctx)
    }
    rest.settle(cancelling: cancelling, rejecting: rejecting, slot: slot + 1, t: t, ctx: &ctx)
  }

  func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void) {
    recognizer.withHotBuffers(body)
    rest.withHotBuffers(body)
  }

  func member<R: GestureRecognizer>(_ type: R.Type) -> R? {
    (recognizer as? R) ?? rest.member(type)
  }
}

/// The end of a `RecognizerList`: no member, every hook does nothing.
struct EndOfTable: RecognizerList {
  init() {}

  static var count: Int { 0 }

  func sequenceBegan(_ f: Finger, t: Double, ctx: inout GestureContext) {}
  func fingerJoined(t: Double, ctx: inout GestureContext) {}
  func fingersMoved(from first: Int, slot: Int, t: Double, ctx: inout GestureContext) -> Int? { nil }
  func allFingersLifting(_ ends: [Int64], t: Double, ctx: inout GestureContext) {}
  func fingerLifting(
    _ f: Finger, last: Bool, from first: Int, slot: Int, t: Double, ctx: inout GestureContext
  ) -> Int? { nil }
  func fingerLeft(t: Double, ctx: inout GestureContext) {}
  func deadline(ctx: GestureContext) -> Double? { nil }
  func fire(due d: Double, slot: Int, ctx: inout GestureContext) -> Int? { nil }
  func accept(_ target: Int, slot: Int, t: Double, ctx: inout GestureContext) {}
  func reject(_ target: Int, slot: Int, t: Double, ctx: inout GestureContext) {}
  func settle(
    cancelling: RecognizerSet, rejecting: RecognizerSet, slot: Int, t: Double, ctx: inout GestureContext
  ) {}
  func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void) {}
  func member<R: GestureRecognizer>(_ type: R.Type) -> R? { nil }
}

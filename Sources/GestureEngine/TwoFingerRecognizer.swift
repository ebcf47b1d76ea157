/// Pinch and rotation: a gesture of the fingers' pair, re-baselined whenever a finger joins or
/// leaves, and finished when the last finger lifts. The hooks live here once; each says only
/// what a change of membership does to its baseline.
protocol TwoFingerRecognizer: ContinuousRecognizer {
  /// A finger joined or left: the baseline is taken again from the fingers now down.
  mutating func membershipChanged(t: Double, ctx: GestureContext)
}

extension TwoFingerRecognizer {
  mutating func fingerJoined(t: Double, ctx: inout GestureContext) { membershipChanged(t: t, ctx: ctx) }

  mutating func fingerLeft(t: Double, ctx: inout GestureContext) { membershipChanged(t: t, ctx: ctx) }

  mutating func allFingersLifting(_ ends: [Int64], t: Double, ctx: inout GestureContext) {
    finish(at: t, ctx: &ctx)
  }

  mutating func fingerLifting(_ f: Finger, last: Bool, t: Double, ctx: inout GestureContext) -> Bool {
    if last { finish(at: t, ctx: &ctx) }
    return false
  }
}

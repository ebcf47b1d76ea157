/// The server's gesture arena: every recognizer, and how their claims settle each other
/// (protocol/gestures.md, "Arena"). Adding a recognizer is its file and one entry here: its
/// place in `Members` and its row in `conflicts` (plus a name below if others refer to it).
///
/// The order is the order the arena asks the members and settles a claim's rivals, so it is
/// also the order of events within one call: a pinch or rotation that begins cancels a long
/// press or pan before they are asked about the same frame, a waiting tap is reported before
/// the cancellations, and the swipe comes last, after the pan it reads its velocity from.
enum StandardTable: RecognizerTable {
  typealias Members =
    TableEntry<TapRecognizer,
    TableEntry<PinchRecognizer,
    TableEntry<RotationRecognizer,
    TableEntry<LongPressRecognizer,
    TableEntry<PanRecognizer,
    TableEntry<SwipeRecognizer,
    EndOfTable>>>>>>

  static let tap = RecognizerSet(slot: 0)
  static let pinch = RecognizerSet(slot: 1)
  static let rotation = RecognizerSet(slot: 2)
  static let longPress = RecognizerSet(slot: 3)
  static let pan = RecognizerSet(slot: 4)
  static let swipe = RecognizerSet(slot: 5)

  static let conflicts = ConflictTable([
    // Tap claims when a finger lifts from a press that can still be a multi-finger tap: the
    // finger left behind starts no one-finger gesture. Pinch and rotation may still take it.
    ConflictRule(excludes: [longPress, pan, swipe]),
    // Pinch and rotation run with each other and win over everything else.
    ConflictRule(excludes: [tap, longPress, pan, swipe]),
    ConflictRule(excludes: [tap, longPress, pan, swipe]),
    // A long press is no tap and no swipe; it runs with a pan.
    ConflictRule(excludes: [swipe], requiresFailureOf: [tap]),
    // A pan is no tap; it runs with a long press and a swipe.
    ConflictRule(requiresFailureOf: [tap]),
    // A swipe, decided at the last lift, settles nothing after it.
    ConflictRule(),
  ])
}

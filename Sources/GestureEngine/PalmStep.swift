/// What the engine does for the palms of a source's next frame (`SourceEngine`, `PalmFilter`):
/// one byte in the engine's first cache line, so the common case is one test and a pass over
/// the frame's touches.
enum PalmStep: UInt8, Sendable {
  /// Classify the frame if a touch in it is described (`details`): none is a palm otherwise.
  /// Zero, the common case: tested without a compare.
  case scan
  /// Palm rejection is off and no palm is down: nothing.
  case off
  /// Classify every frame: a palm is down, and may be listed without details.
  case every
  /// `markPalms` classified the frame already: it has no palm, or has one.
  case marked, markedPalm
}

/// What the TUIO input counted, for `/metrics`.
public struct TUIOCounters: Sendable, Equatable {
  /// Packets read (well-formed or not).
  public var datagrams = 0
  /// Packets dropped as malformed, by kind: an `OSCError.Kind` or a `TUIOFrameMessage.Refusal`.
  public var malformed: [String: Int] = [:]
  /// Bundles dropped because their `fseq` (frame id) was not newer than the last one.
  public var staleFrames = 0
  /// `fseq -1` bundles read for their alive set only.
  public var redundantFrames = 0
  /// Senders taken as restarted (frame id jumped back by more than `TUIOInput.restartJump`).
  public var restarts = 0
  /// Datagrams from new senders refused because `maxSources` were followed already.
  public var refusedSources = 0
  /// Messages of TUIO profiles other than cursors, skipped.
  public var skippedMessages = 0
  /// Fingers not begun because the source had `maxFingers` down.
  public var fingersOverLimit = 0
  /// Senders that went silent past the timeout.
  public var timeouts = 0
  /// Frames handed on.
  public var frames = 0

  public init() {}

  mutating func malformed(_ kind: String) { malformed[kind, default: 0] += 1 }
}

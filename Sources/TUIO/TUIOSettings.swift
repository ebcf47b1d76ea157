/// How TUIO senders become sources: the surface positions are scaled to, how many senders are
/// taken at once, and when a silent one has left.
public struct TUIOSettings: Sendable, Equatable {
  /// Points a normalized position of 1 is, when the sender gives no TUIO 2.0 `dim`.
  public var surfaceWidth: Double = 1920
  public var surfaceHeight: Double = 1080
  /// Senders followed at once; a datagram from another is refused (and counted).
  public var maxSources = 64
  /// Milliseconds of silence after which a sender has left.
  public var timeoutMs: Double = 3000
  /// Fingers one source may have down (the protocol's `maxFingers`): further ones are not
  /// begun until one ends.
  public var maxFingers = 10

  public init() {}
}

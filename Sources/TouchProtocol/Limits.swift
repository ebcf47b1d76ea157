/// The limits in force, reported to every client in `welcome`.
public struct Limits: Sendable, Equatable {
  /// Largest message accepted, in bytes after decompression (close 1009 beyond).
  public var maxMessageBytes: Int = 64 * 1024
  /// Most touches one frame may list.
  public var maxTouchesPerFrame: Int = 20
  /// Most samples one `frames` message may carry (`too_many_frames` beyond).
  public var maxFramesPerMessage: Int = 64
  /// Most fingers down at once per source.
  public var maxFingers: Int = 10
  /// Messages an observer's queue holds before supersedable ones are dropped.
  public var observerQueue: Int = 256
  /// Deepest JSON nesting accepted.
  public var maxDepth: Int = 32
  /// Frames per second a source may send (each sample of a `frames` message counts); the
  /// excess gets `rate_limited` and is dropped. Twice the fastest common digitizer (a 240 Hz
  /// pen), so such a source refills its bucket after a burst instead of living on its edge.
  public var maxFramesPerSecond: Int = 480
  /// `control` messages per second one connection may send; the excess gets `rate_limited`
  /// and is dropped (a control can make the server write to every observer of a session).
  public var maxControlsPerSecond: Int = 20
  /// WebSocket connections in total, and from one client address (HTTP 503 beyond).
  public var maxConnections: Int = 20_000
  public var maxConnectionsPerAddress: Int = 1_000
  /// Sessions in existence at once (HTTP 503 for a new one beyond).
  public var maxSessions: Int = 10_000
  /// Observers of one session (HTTP 503 beyond).
  public var maxObserversPerSession: Int = 2_000

  public init() {}
}

/// Session names: `[A-Za-z0-9_-]{1,64}`.
public enum SessionName {
  public static let maxLength = 64

  public static func isValid<S: StringProtocol>(_ name: S) -> Bool {
    let utf8 = name.utf8
    guard !utf8.isEmpty, utf8.count <= maxLength else { return false }
    return utf8.allSatisfy { c in
      (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
        || c == 0x2D
    }
  }
}

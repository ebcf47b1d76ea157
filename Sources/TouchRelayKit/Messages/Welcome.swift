import TouchProtocol

/// The server's `welcome`: for a source its id (and whether it was resumed), for an observer
/// the sources present and a snapshot of each one's scene.
public struct Welcome: Sendable, Equatable {
  public enum Role: String, Sendable { case source, observer }

  public var role: Role
  public var session: String
  public var serverTime: Double
  /// Every number of `limits`, by name, as sent (so a limit added later is not lost).
  public var limits: [String: Int]
  /// Source only: the id assigned, or the resumed one.
  public var source: String?
  public var resumed: Bool
  /// Observer only, in join order.
  public var sources: [SourceInfo]
  /// Observer only: each source's scene state.
  public var scenes: [SceneSnapshot]

  public init(
    role: Role, session: String, serverTime: Double, limits: [String: Int], source: String? = nil,
    resumed: Bool = false, sources: [SourceInfo] = [], scenes: [SceneSnapshot] = []
  ) {
    self.role = role
    self.session = session
    self.serverTime = serverTime
    self.limits = limits
    self.source = source
    self.resumed = resumed
    self.sources = sources
    self.scenes = scenes
  }

  /// How many samples one message may carry: `maxFramesPerMessage`, or 1 from a server that
  /// does not announce it (it knows only single `frame` messages).
  public var maxFramesPerMessage: Int { max(1, limits["maxFramesPerMessage"] ?? 1) }
}

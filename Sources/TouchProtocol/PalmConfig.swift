/// `hello.config.palm` (protocol/gestures.md, "Palm rejection"): which touches are a palm
/// resting on the surface rather than a finger, so that they take part in no gesture.
/// `false` turns palm rejection off; `true`, `null` or absent keeps it on with the defaults;
/// an object sets either rule, the other keeping its default.
public struct PalmConfig: Sendable, Equatable, Codable {
  /// `false`: no touch is ever a palm (the object's members are then ignored).
  public var enabled: Bool
  /// A touch whose `radius` is at least this many points is a palm; nil: the default.
  public var radius: Double?
  /// Every finger that lands while a pen touches is a palm; nil: the default (true).
  public var whilePen: Bool?

  public init(enabled: Bool = true, radius: Double? = nil, whilePen: Bool? = nil) {
    self.enabled = enabled
    self.radius = radius
    self.whilePen = whilePen
  }

  /// Turned off (`"palm": false`).
  public static let off = PalmConfig(enabled: false)

  private enum Key: String, CodingKey { case radius, whilePen }

  public init(from decoder: any Decoder) throws {
    // `false` or `true`; anything else must be the object (its type error names the member).
    if let single = try? decoder.singleValueContainer(), let on = try? single.decode(Bool.self) {
      self.init(enabled: on)
      return
    }
    let c = try decoder.container(keyedBy: Key.self)
    self.init(
      enabled: true, radius: try c.decodeIfPresent(Double.self, forKey: .radius),
      whilePen: try c.decodeIfPresent(Bool.self, forKey: .whilePen))
  }

  public func encode(to encoder: any Encoder) throws {
    guard enabled else {
      var single = encoder.singleValueContainer()
      try single.encode(false)
      return
    }
    var c = encoder.container(keyedBy: Key.self)
    try c.encodeIfPresent(radius, forKey: .radius)
    try c.encodeIfPresent(whilePen, forKey: .whilePen)
  }

  /// The largest `radius` accepted: far beyond any surface, so a source can set a radius no
  /// contact reaches without the number meaning nothing.
  public static let maxRadius = 100_000.0

  /// `radius` must be a number above 0 (0 would make every touch that reports a size a palm).
  static func validate(_ palm: PalmConfig?) -> ProtocolError? {
    guard let palm, palm.enabled, let r = palm.radius else { return nil }
    if !(r > 0 && r <= maxRadius) {
      return ProtocolError(.badValue, "config.palm.radius must be a number above 0, at most 100000")
    }
    return nil
  }
}

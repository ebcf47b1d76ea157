/// What a touch entry may say about its contact beyond where it is (protocol §2.1): the
/// pointer's kind, a pen's pressure and tilt, the contact's size, and whether a pen hovers
/// above the glass. Each is optional and mirrored to observers as the source sent it.
///
/// A `TouchPoint` carries this only when the source sent one of them, and the engine copies
/// touch points on every frame, so it is kept compact: an absent number is stored as NaN
/// (never a value here, as the decoder refuses non-finite numbers) rather than as an optional,
/// which takes 8 bytes each instead of 16.
public struct ContactDetails: Sendable, Equatable {
  private var storedPressure = Double.nan
  private var storedRadius = Double.nan
  private var storedAltitude = Double.nan
  private var storedAzimuth = Double.nan
  /// `finger`, `pen`, `eraser` or `mouse`; nil when the source did not say (a finger).
  public var kind: TouchKind?
  /// `true`: a pen above the glass, not touching. Such an entry takes no part in any gesture.
  public var hover: Bool?

  public init(
    kind: TouchKind? = nil, pressure: Double? = nil, radius: Double? = nil, altitude: Double? = nil,
    azimuth: Double? = nil, hover: Bool? = nil
  ) {
    self.kind = kind
    self.hover = hover
    self.pressure = pressure
    self.radius = radius
    self.altitude = altitude
    self.azimuth = azimuth
  }

  /// Normalized force, 0 (none) to 1 (the device's most).
  public var pressure: Double? {
    get { storedPressure.isNaN ? nil : storedPressure }
    set { storedPressure = newValue ?? .nan }
  }

  /// The contact's major radius in points, 0 or more.
  public var radius: Double? {
    get { storedRadius.isNaN ? nil : storedRadius }
    set { storedRadius = newValue ?? .nan }
  }

  /// A pen's altitude in radians: 0 flat on the surface, π/2 perpendicular to it.
  public var altitude: Double? {
    get { storedAltitude.isNaN ? nil : storedAltitude }
    set { storedAltitude = newValue ?? .nan }
  }

  /// A pen's azimuth in radians, 0 to 2π, in the surface's coordinates.
  public var azimuth: Double? {
    get { storedAzimuth.isNaN ? nil : storedAzimuth }
    set { storedAzimuth = newValue ?? .nan }
  }

  /// NaN is absence here, so the stored numbers cannot be compared with `==` as they are.
  public static func == (a: ContactDetails, b: ContactDetails) -> Bool {
    a.kind == b.kind && a.hover == b.hover && a.pressure == b.pressure && a.radius == b.radius
      && a.altitude == b.altitude && a.azimuth == b.azimuth
  }

  // The ranges both decoders hold the numbers to (anything else is `bad_value`).
  static func pressureIsValid(_ v: Double) -> Bool { v >= 0 && v <= 1 }
  static func radiusIsValid(_ v: Double) -> Bool { v >= 0 }
  static func altitudeIsValid(_ v: Double) -> Bool { v >= 0 && v <= Double.pi / 2 }
  static func azimuthIsValid(_ v: Double) -> Bool { v >= 0 && v <= 2 * Double.pi }
}

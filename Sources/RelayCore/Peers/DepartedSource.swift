import TouchProtocol

/// A source that went away without a clean close, held for the resume window.
public struct DepartedSource: Sendable {
  public var info: SourceInfo
  /// Server time (ms) after which it is gone for good and observers get `left`.
  public var deadline: Double
}

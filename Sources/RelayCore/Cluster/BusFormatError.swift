/// Why bytes on the bus are not a well-formed message of a node: they are counted and ignored.
public enum BusFormatError: Error, Equatable, Sendable {
  case badMagic
  case truncated
  case badKind(UInt8)
  case badName
  case tooLarge
  case badJSON
  case trailingBytes
  /// A number the core cannot use: a time that is not finite or (`rt`) outside
  /// `BusReader.serverTimeRange`, a count or sequence number above `BusReader.maxCounter`.
  case outOfRange

  /// The label of the `/metrics` counter.
  public var label: String {
    switch self {
    case .badMagic: return "bad_magic"
    case .truncated: return "truncated"
    case .badKind: return "bad_kind"
    case .badName: return "bad_name"
    case .tooLarge: return "too_large"
    case .badJSON: return "bad_json"
    case .trailingBytes: return "trailing_bytes"
    case .outOfRange: return "out_of_range"
    }
  }
}

/// Why bytes are not an OSC 1.0 packet the relay reads. `kind` names the class of fault (a
/// label of the malformed-datagram metric); `detail` says where.
public struct OSCError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: String, Sendable, CaseIterable {
    /// The bytes end before a field does, or a size is not a multiple of 4.
    case truncated
    /// An address that does not start with `/`, or a string that is not UTF-8.
    case badString = "bad_string"
    /// No type tag string, or a tag the decoder does not read.
    case badTypeTag = "bad_type_tag"
    /// A float or double that is NaN or infinite.
    case nonFinite = "non_finite"
    /// A bundle element that is itself a bundle.
    case nestedBundle = "nested_bundle"
    /// Bytes left over after the last argument, or a bundle element whose size lies.
    case badSize = "bad_size"
  }

  public let kind: Kind
  public let detail: String

  public init(_ kind: Kind, _ detail: String) {
    self.kind = kind
    self.detail = detail
  }

  public var description: String { "\(kind.rawValue): \(detail)" }
}

/// A server message the library could not read: not JSON, an unknown `type`, or a member
/// missing or of the wrong type.
public struct MessageDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
  public var reason: String
  public var text: String

  public var description: String { "cannot read server message (\(reason)): \(text.prefix(200))" }
}

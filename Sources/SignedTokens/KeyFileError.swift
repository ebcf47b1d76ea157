/// Why a key file gave no keys. Says what is wrong with the file, never a key's bytes.
public struct KeyFileError: Error, Equatable, Sendable, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

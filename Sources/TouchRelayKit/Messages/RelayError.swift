import TouchProtocol

/// An `error` message: something sent was refused; the connection stays open.
public struct RelayError: Error, Sendable, Equatable {
  /// The contract (protocol/README.md §3); an unknown code from a newer server is kept as text.
  public var code: String
  public var message: String
  /// The refused frame's `seq`, when it could be read.
  public var seq: Int64?

  public init(code: String, message: String, seq: Int64? = nil) {
    self.code = code
    self.message = message
    self.seq = seq
  }

  public var knownCode: ErrorCode? { ErrorCode(rawValue: code) }
}

/// An OSC message: an address pattern (starting with `/`) and its typed arguments.
public struct OSCMessage: Sendable, Equatable {
  public var address: String
  public var arguments: [OSCArgument]

  public init(_ address: String, _ arguments: [OSCArgument] = []) {
    self.address = address
    self.arguments = arguments
  }
}

/// An OSC bundle: a time tag and its messages. Bundles inside bundles are refused by the
/// decoder (`OSCError.Kind.nestedBundle`): TUIO never sends them, and refusing them bounds the
/// work one datagram can cause.
public struct OSCBundle: Sendable, Equatable {
  /// NTP format; 1 means "immediately".
  public var timeTag: UInt64
  public var messages: [OSCMessage]

  public static let immediately: UInt64 = 1

  public init(timeTag: UInt64 = OSCBundle.immediately, messages: [OSCMessage]) {
    self.timeTag = timeTag
    self.messages = messages
  }
}

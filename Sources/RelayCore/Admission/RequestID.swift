/// The driver's own name for one HTTP request it asks the core to admit (`RelayCore.admit`): a
/// refusal comes back as `.refuseUpgrade` with it, so the driver answers the very request it
/// asked about. The core keeps nothing of it.
public struct RequestID: Hashable, Sendable {
  public let value: UInt64

  public init(_ value: UInt64) { self.value = value }
}

import Foundation

/// A value behind a lock, for state shared across threads off the hot path (the client's
/// queues, touch-load's run state). `NSLock` rather than `Mutex` so the package still builds
/// for macOS 14, and rather than NIOConcurrencyHelpers, which is not a declared dependency.
public final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  public init(_ value: Value) {
    self.value = value
  }

  @discardableResult
  public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  public var current: Value { withLock { $0 } }
}

import Foundation

/// A value behind a lock. `NSLock` rather than `Mutex` so the package still builds for
/// macOS 14, and rather than NIOConcurrencyHelpers, which is not a declared dependency.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }

  var current: Value { withLock { $0 } }
}

#if canImport(Glibc)
  import Glibc
#endif

/// A value behind a pthread mutex. Synchronization's `Mutex` is a futex of its own, which
/// ThreadSanitizer cannot see: for state that lws' allocator hook reaches from every server's
/// service thread and from the threads that start servers (`ReceiveBuffers`), a lock TSan
/// understands keeps its reports about real races.
final class PthreadMutex<Value>: @unchecked Sendable {
  private let lock: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  init(_ value: Value) {
    self.value = value
    lock = .allocate(capacity: 1)
    lock.initialize(to: pthread_mutex_t())
    pthread_mutex_init(lock, nil)
  }

  deinit {
    pthread_mutex_destroy(lock)
    lock.deallocate()
  }

  func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    return try body(&value)
  }
}

import CLibWebSockets

#if canImport(Glibc)
  import Glibc
#endif

/// The thread that runs libwebsockets' loop, and touch-relay's signal thread: a detached POSIX
/// thread with a name (for `top -H` and debuggers). A plain pthread, so that the server needs no
/// Foundation `Thread` and no dispatch queue (ARCHITECTURE.md, "Memory per process").
public enum ServiceThread {
  private final class Body {
    let name: String
    let run: @Sendable () -> Void
    init(name: String, run: @escaping @Sendable () -> Void) {
      self.name = name
      self.run = run
    }
  }

  /// Starts `run` on a new thread named `name` (Linux keeps its first 15 bytes).
  public static func start(name: String, _ run: @escaping @Sendable () -> Void) {
    let body = Unmanaged.passRetained(Body(name: name, run: run)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let rc = pthread_create(
      &thread, &attributes,
      { raw in
        let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
        tr_set_thread_name(body.name)
        body.run()
        return nil
      }, body)
    precondition(rc == 0, "cannot start the \(name) thread: \(String(cString: strerror(rc)))")
  }
}

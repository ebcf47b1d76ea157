import CLibWebSockets

/// Runs `fire(owner)` once per iteration of our libev loop, before it waits for events (see
/// `tr_loop_hook` in shim.h). With lws' poll loop the server loop calls the relay itself.
final class LoopHook {
  private let raw: UnsafeMutablePointer<tr_loop_hook>

  init(loop: UnsafeMutableRawPointer, owner: UnsafeMutableRawPointer, fire: tr_timer_fire) {
    raw = .allocate(capacity: 1)
    tr_loop_hook_start(raw, loop, owner, fire)
  }

  /// Must run before the loop is destroyed.
  func stop() { tr_loop_hook_stop(raw) }

  /// Whether `fire` is called before each wait; off costs nothing per iteration.
  var isActive: Bool {
    get { raw.pointee.paused == 0 }
    set { newValue ? tr_loop_hook_resume(raw) : tr_loop_hook_pause(raw) }
  }

  deinit {
    tr_loop_hook_stop(raw)
    raw.deallocate()
  }
}

import CLibWebSockets

/// A one-shot timer on the service thread (see `tr_timer` in shim.h): an lws_sul on the poll
/// loop, an ev_timer on our libev loop. `fire` gets the unretained `owner` back.
final class RelayTimer {
  private let raw: UnsafeMutablePointer<tr_timer>

  init(loop: UnsafeMutableRawPointer?, owner: UnsafeMutableRawPointer, fire: tr_timer_fire) {
    raw = .allocate(capacity: 1)
    tr_timer_init(raw, loop, owner, fire)
  }

  func schedule(_ context: OpaquePointer, afterMilliseconds ms: Double) {
    tr_timer_schedule(context, raw, Int64(max(0, ms) * 1000))
  }

  func cancel() { tr_timer_cancel(raw) }

  deinit {
    tr_timer_cancel(raw)
    raw.deallocate()
  }
}

import NIOCore

/// Sends the due frames of every source on one event loop, once per tick. One timer per
/// source cost a wake-up (epoll_wait plus a timer re-arm) per frame, about as much CPU as
/// sending it; a tick wakes the loop once for all the frames due since the last one. Still
/// open loop: each frame's latency counts from when it was due, so the tick's lateness
/// (at most one tick) shows in the figures instead of being hidden.
final class SendTicker {
  let eventLoop: any EventLoop
  let tick: TimeAmount
  private var drivers: [SourceDriver] = []
  private var timer: Scheduled<Void>?

  init(eventLoop: any EventLoop, tick: TimeAmount) {
    self.eventLoop = eventLoop
    self.tick = tick
  }

  func add(_ driver: SourceDriver) {
    eventLoop.assertInEventLoop()
    drivers.append(driver)
    if timer == nil { fire() }
  }

  private func fire() {
    timer = nil
    let now = nowNanos()
    drivers.removeAll { !$0.sendDue(now: now) }
    guard !drivers.isEmpty else { return }
    timer = eventLoop.assumeIsolated().scheduleTask(in: tick) { [self] in fire() }
  }
}

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
  /// Each driver's next due time, side by side: a tick only looks at this array, so the
  /// drivers with nothing due (nearly all of them at a 250 µs tick) cost a compare each.
  private var dues: [UInt64] = []
  private var timer: Scheduled<Void>?

  init(eventLoop: any EventLoop, tick: TimeAmount) {
    self.eventLoop = eventLoop
    self.tick = tick
  }

  func add(_ driver: SourceDriver) {
    eventLoop.assertInEventLoop()
    drivers.append(driver)
    dues.append(driver.nextDue)
    if timer == nil { fire() }
  }

  private func fire() {
    timer = nil
    let now = nowNanos()
    var finished = false
    for i in dues.indices where dues[i] <= now {
      if drivers[i].sendDue(now: now) {
        dues[i] = drivers[i].nextDue
      } else {
        dues[i] = .max
        finished = true
      }
    }
    if finished {
      drivers = zip(drivers, dues).filter { $0.1 != .max }.map(\.0)
      dues.removeAll { $0 == .max }
    }
    guard !drivers.isEmpty else { return }
    timer = eventLoop.assumeIsolated().scheduleTask(in: tick) { [self] in fire() }
  }
}

import NIOCore

/// Messages received and not yet taken by `next`, plus at most one waiting `next`.
/// Fed on the event loop, drained from any task.
final class InboundQueue: Sendable {
  private struct Waiter {
    var id: UInt64
    var continuation: CheckedContinuation<Received, any Error>
    var timer: Scheduled<Void>?
  }

  private struct State {
    var items: [Received] = []
    var head = 0
    var waiter: Waiter?
    var nextID: UInt64 = 0
    /// Set once the close has been queued: after it, `next` throws.
    var closed: (code: UInt16, reason: String)?

    mutating func pop() -> Received? {
      guard head < items.count else { return nil }
      let item = items[head]
      head += 1
      // Compact now and then so a long-lived queue does not keep everything it delivered.
      if head > 1024, head * 2 > items.count {
        items.removeFirst(head)
        head = 0
      }
      return item
    }

    var count: Int { items.count - head }
  }

  private let state = Locked(State())

  func push(_ item: Received) {
    let waiter: Waiter? = state.withLock { s in
      if case .close(let code, let reason) = item { s.closed = (code, reason) }
      if let w = s.waiter {
        s.waiter = nil
        return w
      }
      s.items.append(item)
      return nil
    }
    if let waiter {
      waiter.timer?.cancel()
      waiter.continuation.resume(returning: item)
    }
  }

  var pending: Int { state.withLock { $0.count } }

  func next(timeout: TimeAmount, on eventLoop: any EventLoop) async throws -> Received {
    let id = state.withLock { s in
      s.nextID += 1
      return s.nextID
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Received, any Error>) in
        enum Outcome {
          case item(Received)
          case failure(any Error)
          case wait
        }
        let outcome: Outcome = state.withLock { s in
          if let item = s.pop() { return .item(item) }
          if let closed = s.closed {
            return .failure(WebSocketClientError.closed(code: closed.code, reason: closed.reason))
          }
          if s.waiter != nil { return .failure(WebSocketClientError.concurrentReceive) }
          s.waiter = Waiter(id: id, continuation: continuation, timer: nil)
          return .wait
        }
        switch outcome {
        case .item(let item): continuation.resume(returning: item)
        case .failure(let error): continuation.resume(throwing: error)
        case .wait:
          let timer = eventLoop.scheduleTask(in: timeout) { [self] in
            fail(
              id: id,
              WebSocketClientError.timeout(
                "waiting \(timeout.nanoseconds / 1_000_000) ms for a message"))
          }
          state.withLock { s in
            if s.waiter?.id == id { s.waiter?.timer = timer }
          }
        }
      }
    } onCancel: {
      fail(id: id, CancellationError())
    }
  }

  /// Ends the wait `id` if it is still the one waiting.
  private func fail(id: UInt64, _ error: any Error) {
    let waiter: Waiter? = state.withLock { s in
      guard let w = s.waiter, w.id == id else { return nil }
      s.waiter = nil
      return w
    }
    waiter?.timer?.cancel()
    waiter?.continuation.resume(throwing: error)
  }
}

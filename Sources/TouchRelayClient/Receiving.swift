import NIOCore
import TouchProtocol

extension WebSocketConnection {
  private var inbound: InboundQueue {
    guard let queue else { preconditionFailure("next() needs a connection opened without onEvent") }
    return queue
  }

  /// The next message, in arrival order. The close (server's code, or 1006 without a close
  /// frame) is returned once as `.close`; after it `next` throws `.closed`.
  /// Throws `.timeout` when nothing arrives in time. One caller at a time.
  public func next(timeout: Duration = .seconds(5)) async throws -> Received {
    try await inbound.next(timeout: TimeAmount(timeout), on: channel.eventLoop)
  }

  /// How long the next wait may take, with `deadline` set: nil when the time is up and nothing
  /// has arrived. Once the time is up, messages that had already arrived are still taken (a
  /// moment each): on a busy machine a caller may get to look only after its deadline.
  private func timeLeft(until deadline: ContinuousClock.Instant) -> Duration? {
    let left = deadline - ContinuousClock.now
    if left > .zero { return left }
    return pendingMessages > 0 ? .milliseconds(1) : nil
  }

  /// The next JSON message whose `type` is `type` (any type when nil), skipping everything
  /// else (other types, pongs); throws `.closed` if the connection closes first.
  public func nextJSON(type: String? = nil, timeout: Duration = .seconds(5)) async throws
    -> JSONValue
  {
    let deadline = ContinuousClock.now + timeout
    while true {
      guard let left = timeLeft(until: deadline) else {
        throw WebSocketClientError.timeout("waiting for a '\(type ?? "any")' message")
      }
      let message: Received
      do {
        message = try await next(timeout: left)
      } catch WebSocketClientError.timeout {
        throw WebSocketClientError.timeout("waiting for a '\(type ?? "any")' message")
      }
      switch message {
      case .text(let text):
        let value = try JSONValue.parse(text)
        if type == nil || value["type"]?.stringValue == type { return value }
      case .close(let code, let reason):
        throw WebSocketClientError.closed(code: code, reason: reason)
      default:
        continue
      }
    }
  }

  /// Skips messages until the close; returns the server's close code (1006 if the
  /// connection ended without a close frame).
  @discardableResult
  public func expectClose(timeout: Duration = .seconds(5)) async throws -> (
    code: UInt16, reason: String
  ) {
    let deadline = ContinuousClock.now + timeout
    while true {
      guard let left = timeLeft(until: deadline) else { throw WebSocketClientError.timeout("waiting for the close") }
      do {
        if case .close(let code, let reason) = try await next(timeout: left) {
          return (code, reason)
        }
      } catch WebSocketClientError.closed(let code, let reason) {
        return (code, reason)
      }
    }
  }

  /// Everything that arrives within `duration` (for "receives nothing" checks); stops early
  /// at the close, which is included.
  public func receiveAll(for duration: Duration) async throws -> [Received] {
    let deadline = ContinuousClock.now + duration
    var all: [Received] = []
    while true {
      guard let left = timeLeft(until: deadline) else { return all }
      do {
        let message = try await next(timeout: left)
        all.append(message)
        if case .close = message { return all }
      } catch WebSocketClientError.timeout {
        return all
      } catch WebSocketClientError.closed {
        return all
      }
    }
  }
}

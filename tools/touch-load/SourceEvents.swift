import NIOCore
import TouchRelayClient

/// What a source connection receives, on its event loop: the `welcome` that names it, and
/// `error`s, which are counted.
final class SourceEvents {
  let recorder: LatencyRecorder
  let flags: RunFlags
  private var welcome: EventLoopPromise<String>?

  init(recorder: LatencyRecorder, flags: RunFlags, welcome: EventLoopPromise<String>) {
    self.recorder = recorder
    self.flags = flags
    self.welcome = welcome
  }

  func handle(_ event: WebSocketEvent) {
    switch event {
    case .text(let buffer):
      buffer.withUnsafeReadableBytes { raw in
        let m = MessageScanner(bytes: raw)
        switch m.kind {
        case .welcome:
          if let p = welcome {
            welcome = nil
            p.succeed(m.string("\"source\":\"") ?? "")
          }
        case .error:
          recorder.serverError(
            m.string("\"code\":\"") ?? "unknown", message: m.string("\"message\":\""), now: nowNanos())
        default:
          break
        }
      }
    case .closed(let code, let reason):
      giveUp(SourceFailure.closed(code, reason))
      if !flags.stopping { recorder.failure("source closed (\(code))", message: reason, now: nowNanos()) }
    case .binary, .ping, .pong:
      break
    }
  }

  /// Fails the wait for `welcome` if it is still pending (timeout, close).
  func giveUp(_ error: any Error) {
    if let p = welcome {
      welcome = nil
      p.fail(error)
    }
  }
}

enum SourceFailure: Error, CustomStringConvertible {
  case closed(UInt16, String)
  case noWelcome

  var description: String {
    switch self {
    case .closed(let code, let reason): return "closed before welcome (\(code) \(reason))"
    case .noWelcome: return "no welcome within 5 s"
    }
  }
}

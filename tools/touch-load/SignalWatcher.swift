import Dispatch
import Foundation
import TouchRelayClient

/// Ctrl-C (and SIGTERM) end the run early with the report so far; a second one exits at once.
final class SignalWatcher: Sendable {
  private let sources: Locked<[any DispatchSourceSignal]> = Locked([])
  private let count = Locked(0)

  init(onStop: @escaping @Sendable () -> Void) {
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      source.setEventHandler { [count] in
        let n = count.withLock {
          $0 += 1
          return $0
        }
        if n > 1 { exit(130) }
        onStop()
      }
      source.resume()
      sources.withLock { $0.append(source) }
    }
  }
}

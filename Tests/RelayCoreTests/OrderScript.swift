import Foundation
import Logging
import RelayCore

/// One script of events through a `RelayCore`, written out as everything the core made of it,
/// in the order it made it: every action, every peer said to have output and that peer's
/// messages and close. Run in two processes (`OutputOrderAcrossProcessesTests`), it shows
/// whether the core's output order depends on the per-process seed of Swift's hashing.
///
/// The script exercises the places where the core goes over many peers or sessions at once:
/// several sessions whose sources drop at one moment (the resume windows end together, and
/// every session's observers get `left`), then a shutdown (every peer gets its 1001) whose
/// drain ends with observers still open (every one is cut).
enum OrderScript {
  static let sessions = 6
  static let sourcesPerSession = 4
  static let observersPerSession = 2

  static func transcript() throws -> String {
    let h = CoreHarness { $0.resumeWindow = 1 }
    var out: [String] = []
    func record() {
      for action in h.takeActions() { out.append(describe(action)) }
      for serial in h.takeOutputPeers() {
        out.append("output \(serial.serial)")
        for m in h.messages(serial) { out.append("  \(m.text)") }
        if let close = h.decidedClose(serial) { out.append("  close \(close.code.rawValue) \(close.reason)") }
      }
    }
    var sources: [Peer] = []
    for s in 0..<sessions {
      for _ in 0..<observersPerSession { _ = try h.observer("session-\(s)") }
      for k in 0..<sourcesPerSession {
        let (peer, _) = try h.source("session-\(s)", address: "10.0.\(s).\(k)")
        h.send(h.frame(1, t: 0, [(1, "began", 10, 10)]), from: peer, at: 1)
        sources.append(peer)
      }
    }
    record()
    // Every source drops at once, without a close: each may resume within the window.
    for peer in sources { h.core.closed(peer.id, at: 100) }
    record()
    // The windows end together: every departed source leaves.
    h.tick(at: 100 + 1000 + 2)
    record()
    h.core.requestShutdown(at: 2000)
    record()
    // No observer takes its close: the drain's deadline cuts them all.
    h.tick(at: 2000 + h.core.configuration.drainTimeout * 1000 + 1)
    record()
    return out.joined(separator: "\n") + "\n"
  }

  static func describe(_ action: RelayAction) -> String {
    switch action {
    case .pauseReading(let p): return "pause \(p)"
    case .resumeReading(let p): return "resume \(p)"
    case .kill(let p): return "kill \(p)"
    case .wake(let at): return "wake \(at)"
    case .finished: return "finished"
    case .log(let line):
      // The metadata is a dictionary, printed in key order: the line's own order is the core's.
      let meta = line.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      return "log \(line.level) \(line.message) \(meta.joined(separator: " "))"
    case .record(let p, _): return "record \(p)"
    case .busSubscribe(let node): return "subscribe \(node)"
    case .busUnsubscribe(let node): return "unsubscribe \(node)"
    case .busNotice(let bytes): return "notice \(bytes.count)"
    case .refuseUpgrade(let request, let response): return "refuse \(request.value) \(response.status)"
    case .answerClose(let p, let code, _): return "answer close \(p) \(code.rawValue)"
    }
  }
}

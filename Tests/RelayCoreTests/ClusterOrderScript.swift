import Foundation
import Logging
import RelayCore

/// One script of events through seven `RelayCore`s configured as cluster nodes A to G, joined
/// by a bus carried by hand (every notice and data message goes to every other node, unless the
/// script loses it), written out as everything each core made of it, in the order it made it:
/// actions, bus messages (as text), and every peer's messages. Run in two processes
/// (`OutputOrderAcrossProcessesTests`), it shows whether a cluster node's output order depends
/// on the per-process seed of Swift's hashing.
///
/// It goes through the places where a node goes over many nodes, sessions or sources at once.
/// A follows six sessions in which each of B to F has four sources, each with a pan begun. Two
/// sources of B in every session drop (held for a resume). G joins: every node answers its sync
/// with every session's sources and departed ones. C's sources all close while its data is lost:
/// A's next sync ends with C's announcement missing them (their pans cancelled, `left`). D, E
/// and F fall silent together: lost at one heartbeat (pans cancelled, sources held), and `left`
/// when the window ends, while B's dropped sources run out. B says goodbye: its sources leave.
enum ClusterOrderScript {
  static let sessions = 6
  static let sourcesPerSession = 4
  static let observersPerSession = 2
  /// Nodes with sources; A has the observers, G joins late.
  static let sourceNodes = ["B", "C", "D", "E", "F"]
  static let silentNodes: Set<String> = ["D", "E", "F"]

  /// Every source of every source node leaves at some point, to both observers of its session.
  static var leftMessagesExpected: Int { sourceNodes.count * sessions * sourcesPerSession * observersPerSession }

  static func transcript() throws -> String {
    var out: [String] = []
    var nodes: [(name: String, h: CoreHarness)] = []
    func addNode(_ name: String, at t: Double) -> CoreHarness {
      let epoch = UInt64(nodes.count + 1)
      let h = CoreHarness(at: t) {
        $0.resumeWindow = 1
        $0.cluster = ClusterRules(node: name, epoch: epoch)
      }
      nodes.append((name, h))
      return h
    }
    func node(_ name: String) -> CoreHarness { nodes.first { $0.name == name }!.h }
    /// Nodes whose messages no longer reach the others (dead, or their data lost).
    var mute: Set<String> = []
    var dataLost: Set<String> = []

    /// Carries what every node has for the bus to every other node, until no node has anything.
    func run(at t: Double) {
      var busy = true
      while busy {
        busy = false
        for (name, h) in nodes {
          for action in h.takeActions() {
            busy = true
            switch action {
            case .busNotice(let bytes):
              out.append("\(name) notice \(text(bytes))")
              guard !mute.contains(name) else { continue }
              for (other, o) in nodes where other != name {
                bytes.withUnsafeBytes { o.core.busReceived(notice: $0, at: t) }
              }
            case .busSubscribe(let remote):
              out.append("\(name) \(OrderScript.describe(action))")
              h.core.busSubscribed(node: remote, at: t)
            default:
              out.append("\(name) \(OrderScript.describe(action))")
            }
          }
          for peer in h.takeOutputPeers() {
            out.append("\(name) output \(peer.serial)")
            for m in h.messages(peer) { out.append("  \(m.text)") }
            if let close = h.decidedClose(peer) { out.append("  close \(close.code.rawValue) \(close.reason)") }
          }
          if let data = h.core.takeBusData() {
            busy = true
            out.append("\(name) data \(text(data))")
            guard !mute.contains(name), !dataLost.contains(name) else { continue }
            for (other, o) in nodes where other != name {
              data.withUnsafeBytes { o.core.busReceived(data: $0, at: t) }
            }
          }
        }
      }
    }
    func heartbeats(at t: Double) {
      // Each heartbeat is a notice among the node's actions, carried by `run`.
      for (_, h) in nodes { h.core.busHeartbeat(at: t) }
      run(at: t)
    }

    let a = addNode("A", at: 0)
    for name in sourceNodes { _ = addNode(name, at: 0) }
    for (_, h) in nodes { h.core.busConnected(at: 0) }
    run(at: 0)

    for s in 0..<sessions {
      for _ in 0..<observersPerSession { _ = try a.observer("session-\(s)", at: 1) }
    }
    var sources: [String: [Peer]] = [:]
    for name in sourceNodes {
      let h = node(name)
      for s in 0..<sessions {
        for k in 0..<sourcesPerSession {
          let (peer, _) = try h.source("session-\(s)", address: "10.\(s).\(k).1", at: 1)
          h.send(h.frame(1, t: 100, [(1, "began", 100, 100)]), from: peer, at: 2)
          for m in 1...6 {
            let x = 100 + Double(m) * 20
            h.send(h.frame(1 + m, t: 100 + Double(m) * 16, [(1, "moved", x, 100)]), from: peer, at: 3)
          }
          sources[name, default: []].append(peer)
        }
      }
    }
    run(at: 3)

    // Two sources of B in every session drop: held for a resume, announced as departed.
    for peer in sources["B"]!.enumerated().filter({ $0.offset % sourcesPerSession < 2 }).map(\.element) {
      node("B").core.closed(peer.id, at: 10)
    }
    run(at: 10)

    // G joins: every node answers its sync.
    addNode("G", at: 20).core.busConnected(at: 20)
    run(at: 20)

    // C's sources all close while its data is lost; A's next sync finds them gone.
    dataLost = ["C"]
    for peer in sources["C"]! {
      node("C").core.peerSentClose(peer.id, code: 1000)
      node("C").core.closed(peer.id, at: 30)
    }
    run(at: 30)
    dataLost = []
    a.core.busDisconnected(at: 40)
    a.core.busConnected(at: 40)
    run(at: 40)

    // D, E and F fall silent together.
    mute = silentNodes
    for t in stride(from: 1000.0, through: 5000, by: 1000) { heartbeats(at: t) }

    // B leaves cleanly.
    let bye = node("B").core.busGoodbye!
    out.append("B goodbye \(text(bye))")
    for (other, o) in nodes where other != "B" { bye.withUnsafeBytes { o.core.busReceived(notice: $0, at: 5500) } }
    run(at: 5500)
    return out.joined(separator: "\n") + "\n"
  }

  /// A bus message's bytes, printable ones as they are and the others as '.': enough to see
  /// which record of which session and source comes where.
  private static func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes.map { (0x20..<0x7f).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
  }
}

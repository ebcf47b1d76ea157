import ConformanceSupport
import Logging
import RelayCore
import Testing
import TouchProtocol

/// Drives a `RelayCore` the way a driver does, with no socket and no clock: every event at a
/// time the test chooses, every action collected, every peer's output pulled as JSON.
final class CoreHarness {
  let core: RelayCore
  /// Every action the core asked for, in order, since the last `takeActions`.
  private(set) var actions: [RelayAction] = []

  init(
    at t: Double = 0, access: AccessPolicy = AccessPolicy(),
    _ configure: (inout RelayCore.Configuration) -> Void = { _ in }
  ) {
    var c = RelayCore.Configuration()
    c.logLevel = .debug
    configure(&c)
    core = RelayCore(configuration: c, access: access, at: t)
  }

  /// The peers the core said have output, in order, since the last `takeOutputs`.
  private(set) var outputs: [Peer] = []

  /// The wake-up the core asked for last (`.wake`), until `passTime` fires it.
  private(set) var wake: Double?

  /// Collects what the core asked for so far.
  func collect() {
    core.drainActions {
      if case .wake(let at) = $0 { wake = at }
      actions.append($0)
    }
    core.drainOutputs { outputs.append($0) }
  }

  // MARK: - Virtual time

  /// What a driver does when an event it brought in is done: fires what is due by then and
  /// plans the wake-up (`settleTimers`), until nothing is left unsettled.
  func settle() {
    collect()
    while core.timersUnsettled {
      core.settleTimers()
      collect()
    }
  }

  /// Lets server time run to `rt`, as a driver's clock would: every wake-up the core asks for
  /// before then fires at exactly the time it asked for (`wakeFired(at:)`), and so may ask for
  /// the next. Nothing else happens meanwhile; the event at `rt` is the caller's.
  func passTime(to rt: Double) {
    settle()
    while let at = wake, at < rt {
      wake = nil
      core.wakeFired(at: at)
      settle()
    }
  }

  /// `text` from `peer` at `rt`, after every wake-up due before then, then settled.
  func sendOnClock(_ text: String, from peer: Peer, at rt: Double) {
    passTime(to: rt)
    Array(text.utf8).withUnsafeBytes { core.receive($0, from: peer, at: rt) }
    settle()
  }

  /// A tick at `rt` (the driver's timer), after every wake-up due before then, then settled.
  func tickOnClock(at rt: Double) {
    passTime(to: rt)
    core.tick(at: rt)
    settle()
  }

  /// `peer` closes cleanly (1000) at `rt`, after every wake-up due before then.
  func closeOnClock(_ peer: Peer, at rt: Double) {
    passTime(to: rt)
    core.peerSentClose(peer, code: 1000)
    core.closed(peer, at: rt)
    settle()
  }

  /// The serials of the peers said to have output since the last call.
  func takeOutputs() -> [Int] {
    collect()
    defer { outputs = [] }
    return outputs.map(\.serial)
  }

  /// The peers said to have output since the last call, in the order the core said so.
  func takeOutputPeers() -> [Peer] {
    collect()
    defer { outputs = [] }
    return outputs
  }

  /// The actions since the last call.
  func takeActions() -> [RelayAction] {
    collect()
    defer { actions = [] }
    return actions
  }

  /// An observer of `session`, admitted and opened, past its welcome (returned).
  func observer(
    _ session: String, _ filter: ObserverFilter = ObserverFilter(raw: true), address: String = "10.0.0.1",
    at t: Double = 0
  ) throws -> (Peer, JSON) {
    let peer = core.open(.observer(session: session, filter: filter), address: address, transport: handle, at: t)
    let welcome = try #require(take(peer).first)
    #expect(welcome["type"]?.string == "welcome")
    return (peer, welcome)
  }

  /// A source of `session` that has said hello; returns it with its id.
  func source(
    _ session: String, hello: String = #"{"type":"hello","device":{"name":"phone","width":400,"height":800}}"#,
    address: String = "10.0.0.2", at t: Double = 0
  ) throws -> (Peer, String) {
    let peer = core.open(.source(session: session), address: address, transport: handle, at: t)
    send(hello, from: peer, at: t)
    let welcome = try #require(take(peer).first { $0["type"]?.string == "welcome" })
    return (peer, try #require(welcome["source"]?.string))
  }

  func send(_ text: String, from peer: Peer, at t: Double) {
    Array(text.utf8).withUnsafeBytes { core.receive($0, from: peer, at: t) }
    collect()
  }

  /// A frame with touches (id, phase, x, y).
  func frame(_ seq: Int, t: Double, _ touches: [(Int, String, Double, Double)]) -> String {
    let list = touches.map { #"{"id":\#($0.0),"phase":"\#($0.1)","x":\#($0.2),"y":\#($0.3)}"# }
    return #"{"type":"frame","seq":\#(seq),"t":\#(t),"touches":[\#(list.joined(separator: ","))]}"#
  }

  func tick(at t: Double) {
    core.tick(at: t)
    collect()
  }

  /// Everything `peer` has to receive now, as the driver would write it.
  func take(_ peer: Peer) -> [JSON] {
    collect()
    var out: [JSON] = []
    while let m = core.nextMessage(for: peer) {
      out.append((try? JSON.parse(m.withPayload { Array($0) })) ?? .string("unparsable: \(m.text)"))
    }
    return out
  }

  /// A stand-in for a driver's handle: the core only passes it back.
  let handle = UnsafeMutableRawPointer(bitPattern: 0x1000)
}

extension JSON {
  var type: String? { self["type"]?.string }
}

extension RelayAction {
  /// The peer a peer action is about.
  var peer: Peer? {
    switch self {
    case .pauseReading(let p), .resumeReading(let p), .kill(let p), .record(let p, _): return p
    case .wake, .finished, .log, .busSubscribe, .busUnsubscribe, .busNotice: return nil
    }
  }

  var isPause: Bool {
    if case .pauseReading = self { return true }
    return false
  }

  var isResume: Bool {
    if case .resumeReading = self { return true }
    return false
  }

  var wakeTime: Double? {
    if case .wake(let t) = self { return t }
    return nil
  }

  var isFinished: Bool {
    if case .finished = self { return true }
    return false
  }

  var logLine: LogLine? {
    if case .log(let l) = self { return l }
    return nil
  }
}

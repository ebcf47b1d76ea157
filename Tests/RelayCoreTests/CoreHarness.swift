import ConformanceSupport
import Logging
@testable import RelayCore
import Testing
import TouchProtocol

/// Drives a `RelayCore` the way a driver does, with no socket and no clock: every event at a
/// time the test chooses, every action collected, every peer's output pulled as JSON.
final class CoreHarness {
  /// What a test holds for a peer and gives back to the harness: the core's `Peer` today.
  /// Tests name only this, so that a change in how the core names peers changes this line.
  typealias PeerHandle = Peer

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

  /// The harness's peer for an id the core gave (nil once the peer is closed).
  func opened(_ id: PeerID) -> Peer {
    guard let peer = core.peer(id) else { fatalError("\(id) is not open") }
    return peer
  }

  /// The wake-up the core asked for last (`.wake`), until `passTime` fires it.
  private(set) var wake: Double?

  /// Collects what the core asked for so far.
  func collect() {
    core.drainActions {
      switch $0 {
      case .wake(let at): wake = at
      case .pauseReading(let p): notReading.insert(p)
      case .resumeReading(let p): notReading.remove(p)
      default: break
      }
      actions.append($0)
    }
    // A peer closed since it was announced is no one's to write to any more.
    core.drainOutputs { id in core.peer(id).map { outputs.append($0) } }
  }

  // MARK: - Virtual time

  /// The harness's clock: the server time of the last event or wake-up it brought in on the
  /// clock (the `...OnClock` methods and `passTime`). It never goes back.
  private(set) var clock: Double = -Double.infinity

  /// What a driver does when an event it brought in is done: fires what is due by then and
  /// plans the wake-up (`advance()`), until nothing is left unsettled.
  func settle() {
    collect()
    while core.timersUnsettled {
      core.advance()
      collect()
    }
  }

  /// Lets server time run to `rt`, as a driver's clock would: every wake-up the core asks for
  /// by then fires at exactly the time it asked for (`advance(to:)`), and may ask for the
  /// next, which fires too if it is due by `rt`. Nothing else happens meanwhile: the driver's
  /// own tick (`tickOnClock`) and every event are the caller's. The one way time passes here.
  func passTime(to rt: Double) {
    fireWakes(through: rt, including: true)
    advanceClock(to: rt)
  }

  /// Fires every wake-up due before `rt` (or by `rt`, `including`), each at its own time.
  private func fireWakes(through rt: Double, including: Bool) {
    settle()
    while let at = wake, including ? at <= rt : at < rt {
      wake = nil
      if at < clock { Issue.record("the core asked for a wake-up at \(at), in the past of \(clock)") }
      advanceClock(to: at)
      core.advance(to: at)
      settle()
    }
  }

  private func advanceClock(to rt: Double) {
    clock = max(clock, rt)
  }

  /// The time of an event on the clock: the clock's if not given; one in its past is a test's mistake.
  private func eventTime(_ rt: Double?) -> Double {
    guard let rt else { return clock }
    if rt < clock { Issue.record("an event at \(rt), in the past of the clock (\(clock))") }
    // What is due at the event's own time fires when the event is done (`settle`), as in a driver.
    fireWakes(through: rt, including: false)
    advanceClock(to: rt)
    return rt
  }

  /// `text` from `peer` at `rt`, after every wake-up due before then, then settled.
  func sendOnClock(_ text: String, from peer: Peer, at rt: Double? = nil) {
    let t = eventTime(rt)
    Array(text.utf8).withUnsafeBytes { core.receive($0, from: peer.id, at: t) }
    settle()
  }

  /// A tick at `rt` (the driver's timer), after every wake-up due before then, then settled.
  func tickOnClock(at rt: Double) {
    let t = eventTime(rt)
    core.advance(to: t)
    settle()
  }

  /// `peer` closes with `code` (1000: cleanly) at `rt`, after every wake-up due before then.
  func closeOnClock(_ peer: Peer, code: UInt16 = 1000, at rt: Double? = nil) {
    let t = eventTime(rt)
    core.peerSentClose(peer.id, code: code)
    core.closed(peer.id, at: t)
    settle()
  }

  /// `peer`'s connection is gone without a close frame at `rt` (a dropped network, or the
  /// driver's library hung up on a peer that stopped answering pings).
  func dropOnClock(_ peer: Peer, at rt: Double? = nil) {
    let t = eventTime(rt)
    core.closed(peer.id, at: t)
    settle()
  }

  /// Shutdown is asked for at `rt` (SIGTERM).
  func shutdownOnClock(at rt: Double? = nil) {
    let t = eventTime(rt)
    core.requestShutdown(at: t)
    settle()
  }

  /// An observer of `session` opened at `rt` (with a token, and the request's wall clock in
  /// Unix seconds, when given), past its welcome (returned).
  func observerOnClock(
    _ session: String, _ filter: ObserverFilter = ObserverFilter(raw: true), address: String = "10.0.0.1",
    token: String? = nil, wallClock: Double? = nil, at rt: Double? = nil
  ) throws -> (Peer, JSON) {
    let t = eventTime(rt)
    let peer = opened(core.open(
      .observer(session: session, filter: filter), address: address, token: token,
      wallClock: wallClock, at: t))
    settle()
    let welcome = try #require(take(peer).first)
    #expect(welcome.type == "welcome")
    return (peer, welcome)
  }

  /// A source of `session` opened at `rt` that has said `hello` then; returns it with its id.
  func sourceOnClock(
    _ session: String, hello: String = #"{"type":"hello","device":{"name":"phone","width":400,"height":800}}"#,
    address: String = "10.0.0.2", at rt: Double? = nil
  ) throws -> (Peer, String) {
    let t = eventTime(rt)
    let peer = opened(core.open(.source(session: session), address: address, at: t))
    settle()
    sendOnClock(hello, from: peer, at: t)
    let welcome = try #require(take(peer).first { $0.type == "welcome" })
    return (peer, try #require(welcome["source"]?.string))
  }

  /// Peers the driver was told not to read (`pauseReading`) and not told to read again.
  private var notReading: Set<PeerID> = []

  /// Whether the driver reads `peer` now, as the core last told it.
  func isReading(_ peer: Peer) -> Bool {
    collect()
    return !notReading.contains(peer.id)
  }

  /// `texts` from `peer`, each sent at its time, read as the driver reads them: at that time,
  /// or, while the core has the peer's reading paused, when it is resumed (meanwhile they wait
  /// in TCP). The server time each was read at, in order; the ones after a pause with no end
  /// (reading stopped, or no wake-up to come) are never read and not listed.
  func streamOnClock(_ texts: [(text: String, at: Double)], from peer: Peer) -> [Double] {
    var readAt: [Double] = []
    for (text, sent) in texts {
      passTime(to: sent)
      while !isReading(peer) {
        guard let at = wake else { return readAt }
        passTime(to: at)
      }
      sendOnClock(text, from: peer, at: clock)
      readAt.append(clock)
    }
    return readAt
  }

  // MARK: - A cluster's bus, carried by the test

  /// The bus is up at `rt` (the driver's subscriptions are in place).
  func busUpOnClock(at rt: Double? = nil) {
    let t = eventTime(rt)
    core.busConnected(at: t)
    settle()
  }

  /// The driver subscribed to `node`'s data channel at `rt`.
  func busSubscribedOnClock(_ node: String, at rt: Double? = nil) {
    let t = eventTime(rt)
    core.busSubscribed(node: node, at: t)
    settle()
  }

  /// The data message this node would publish now, if records are waiting.
  func takeBusData() -> [UInt8]? { core.takeBusData() }

  /// A data message read from another node's channel at `rt`.
  func busDataOnClock(_ bytes: [UInt8], at rt: Double? = nil) {
    let t = eventTime(rt)
    bytes.withUnsafeBytes { core.busReceived(data: $0, at: t) }
    settle()
  }

  /// A message read from the nodes' channel at `rt`.
  func busNoticeOnClock(_ bytes: [UInt8], at rt: Double? = nil) {
    let t = eventTime(rt)
    bytes.withUnsafeBytes { core.busReceived(notice: $0, at: t) }
    settle()
  }

  /// The driver's once-a-second bus heartbeat at `rt`: the notice to publish, if any.
  func busHeartbeatOnClock(at rt: Double? = nil) -> [UInt8]? {
    busHeartbeat(at: eventTime(rt))
  }

  /// The bus heartbeat at `t` (off the clock): the notice it asked to publish (taken from the
  /// actions, where it comes first of the event's; the rest stay), if any.
  func busHeartbeat(at t: Double) -> [UInt8]? {
    collect()
    let before = actions.count
    core.busHeartbeat(at: t)
    settle()
    guard let i = actions[before...].firstIndex(where: { $0.busNotice != nil }) else { return nil }
    return actions.remove(at: i).busNotice
  }

  /// What the driver is to do on the bus, taken from the actions (the rest stay): the notices
  /// to publish on the nodes' channel, in order, and the nodes' data channels to subscribe to.
  func takeBusActions() -> (notices: [[UInt8]], subscribe: [String]) {
    collect()
    var notices: [[UInt8]] = []
    var subscribe: [String] = []
    actions.removeAll {
      switch $0 {
      case .busNotice(let bytes): notices.append(bytes)
      case .busSubscribe(let node): subscribe.append(node)
      default: return false
      }
      return true
    }
    return (notices, subscribe)
  }

  /// A bus notice in words: its kind and node, and a `sync`'s target ("sync B→A").
  static func describe(notice bytes: [UInt8]) -> String {
    guard case .success(let n) = bytes.withUnsafeBytes({ NodeNotice.decode($0) }) else { return "malformed" }
    return "\(n.kind) \(n.node)" + (n.target.isEmpty ? "" : "→\(n.target)")
  }

  // MARK: - What the driver is told

  /// What the driver is told to do besides writing and waking (the harness is its clock),
  /// in the harness's words, so that tests need not name the core's actions.
  enum DriverAction: Equatable, CustomStringConvertible {
    case pauseReading(PeerID)
    case resumeReading(PeerID)
    case kill(PeerID)
    case finished
    /// A cluster's: a notice to publish on the nodes' channel (`describe(notice:)`), a
    /// node's data channel to subscribe to or leave.
    case busNotice(String)
    case busSubscribe(String)
    case busUnsubscribe(String)
    /// A refusal (request, status) or a close answer no `admit` or `sendClose` took.
    case refuseUpgrade(UInt64, Int)
    case answerClose(PeerID, CloseCode)

    static func == (a: DriverAction, b: DriverAction) -> Bool {
      switch (a, b) {
      case (.pauseReading(let x), .pauseReading(let y)), (.resumeReading(let x), .resumeReading(let y)),
        (.kill(let x), .kill(let y)):
        return x == y
      case (.finished, .finished): return true
      case (.busNotice(let x), .busNotice(let y)), (.busSubscribe(let x), .busSubscribe(let y)),
        (.busUnsubscribe(let x), .busUnsubscribe(let y)):
        return x == y
      case (.refuseUpgrade(let r, let s), .refuseUpgrade(let r2, let s2)): return r == r2 && s == s2
      case (.answerClose(let x, let c), .answerClose(let y, let c2)): return x == y && c == c2
      default: return false
      }
    }

    var description: String {
      switch self {
      case .pauseReading(let p): "pauseReading(\(p))"
      case .resumeReading(let p): "resumeReading(\(p))"
      case .kill(let p): "kill(\(p))"
      case .finished: "finished"
      case .busNotice(let n): "busNotice(\(n))"
      case .busSubscribe(let n): "busSubscribe(\(n))"
      case .busUnsubscribe(let n): "busUnsubscribe(\(n))"
      case .refuseUpgrade(let r, let s): "refuseUpgrade(\(r), \(s))"
      case .answerClose(let p, let c): "answerClose(\(p), \(c.rawValue))"
      }
    }
  }

  /// The driver's actions since the last call (or `takeActions`), in order; wake-ups, log
  /// lines and recordings are not among them (`takeLogMessages` has the log).
  func takeDriverActions() -> [DriverAction] {
    takeActions().compactMap {
      switch $0 {
      case .pauseReading(let p): .pauseReading(p)
      case .resumeReading(let p): .resumeReading(p)
      case .kill(let p): .kill(p)
      case .finished: .finished
      case .busNotice(let bytes): .busNotice(Self.describe(notice: bytes))
      case .busSubscribe(let node): .busSubscribe(node)
      case .busUnsubscribe(let node): .busUnsubscribe(node)
      case .wake, .log, .record: nil
      // Answers a driver takes at once (`admit`, `sendClose`): left as actions, they are seen.
      case .refuseUpgrade(let request, let response): .refuseUpgrade(request.value, response.status)
      case .answerClose(let p, let code, _): .answerClose(p, code)
      }
    }
  }

  /// The messages of the log lines since the last call (or `takeActions`), in order; every
  /// other action is kept for `takeDriverActions`.
  func takeLogMessages() -> [String] {
    collect()
    let lines = actions.compactMap(\.logLine)
    actions.removeAll { $0.logLine != nil }
    return lines.map(\.message)
  }

  // MARK: - Answers the driver needs at once

  private var lastRequest: UInt64 = 0

  /// Asks the core to admit an upgrade to `target`, as a driver does: under a request id of its
  /// own, then the refusal (`.refuseUpgrade` for that request, taken from the actions; the rest
  /// stay), nil if the upgrade may proceed.
  func admit(
    _ target: RequestTarget, address: String, token: String?, origin: String?, wallClock: Double,
    at rt: Double? = nil
  ) -> HTTPResponse? {
    collect()
    lastRequest += 1
    let request = RequestID(lastRequest)
    core.admit(request, target, address: address, token: token, origin: origin, wallClock: wallClock, at: rt)
    collect()
    guard let i = actions.firstIndex(where: { $0.refusal?.request == request }) else { return nil }
    return actions.remove(at: i).refusal?.response
  }

  /// `peer` sends a close frame with `payload`: the server's own close that answers it
  /// (`.answerClose`, taken from the actions; the rest stay), nil if it is echoed.
  func sendClose(_ payload: [UInt8], from peer: Peer) -> (code: CloseCode, reason: String)? {
    collect()
    payload.withUnsafeBytes { core.peerSentClose(peer.id, payload: $0) }
    collect()
    guard let i = actions.firstIndex(where: { $0.closeAnswer?.peer == peer.id }) else { return nil }
    return actions.remove(at: i).closeAnswer.map { ($0.code, $0.reason) }
  }

  /// The close the core decided on for `peer`, whether or not messages are still queued
  /// before it (`takeClose` waits for them).
  func decidedClose(_ peer: PeerHandle) -> (code: CloseCode, reason: String)? {
    collect()
    return peer.closeToSend
  }

  /// Every message `peer` has to receive now, as the driver would pull them.
  func messages(_ peer: PeerHandle) -> [OutgoingMessage] {
    var out: [OutgoingMessage] = []
    while case .message(let m, _) = core.nextWrite(for: peer.id) { out.append(m) }
    return out
  }

  /// Closes taken with `takeClose`.
  private var closesTaken: Set<ObjectIdentifier> = []

  /// The close the core decided to send `peer` (code and reason), once every message queued
  /// before it is taken (`take`); nil while it has none or messages are still waiting.
  func takeClose(_ peer: PeerHandle) -> (code: Int, reason: String)? {
    collect()
    guard !peer.hasPendingOutput, let close = peer.closeToSend else { return nil }
    closesTaken.insert(ObjectIdentifier(peer))
    return (Int(close.code.rawValue), close.reason)
  }

  /// Like SwiftNIO's `EmbeddedChannel.finish()`: the test is over, and nothing may be left
  /// that it did not look at: no message or close for any open peer, no driver action (log
  /// lines aside), no bus data, and no timer due by the clock that did not fire.
  func finish(sourceLocation: SourceLocation = #_sourceLocation) {
    settle()
    for peer in core.peers {
      let left = take(peer)
      if !left.isEmpty {
        Issue.record("peer \(peer.serial) has messages left: \(left)", sourceLocation: sourceLocation)
      }
      if let close = peer.closeToSend, !closesTaken.contains(ObjectIdentifier(peer)) {
        Issue.record("peer \(peer.serial) has a close left: \(close)", sourceLocation: sourceLocation)
      }
    }
    let untaken = takeDriverActions()
    if !untaken.isEmpty { Issue.record("actions left: \(untaken)", sourceLocation: sourceLocation) }
    if let due = core.nextDue {
      // An engine deadline's wake-up comes `deadlineSlackMs` after it; anything else's at its time.
      if wake == nil {
        Issue.record("a timer is due at \(due) and no wake-up was asked for", sourceLocation: sourceLocation)
      } else if due + RelayCore.deadlineSlackMs < clock {
        Issue.record("a timer due at \(due) did not fire by \(clock)", sourceLocation: sourceLocation)
      }
    }
    if let data = takeBusData() {
      Issue.record("\(data.count) bytes of bus data left", sourceLocation: sourceLocation)
    }
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
    let peer = opened(core.open(.observer(session: session, filter: filter), address: address, at: t))
    let welcome = try #require(take(peer).first)
    #expect(welcome["type"]?.string == "welcome")
    return (peer, welcome)
  }

  /// A source of `session` that has said hello; returns it with its id.
  func source(
    _ session: String, hello: String = #"{"type":"hello","device":{"name":"phone","width":400,"height":800}}"#,
    address: String = "10.0.0.2", at t: Double = 0
  ) throws -> (Peer, String) {
    let peer = opened(core.open(.source(session: session), address: address, at: t))
    send(hello, from: peer, at: t)
    let welcome = try #require(take(peer).first { $0["type"]?.string == "welcome" })
    return (peer, try #require(welcome["source"]?.string))
  }

  func send(_ text: String, from peer: Peer, at t: Double) {
    Array(text.utf8).withUnsafeBytes { core.receive($0, from: peer.id, at: t) }
    collect()
  }

  /// A frame with touches (id, phase, x, y).
  func frame(_ seq: Int, t: Double, _ touches: [(Int, String, Double, Double)]) -> String {
    let list = touches.map { #"{"id":\#($0.0),"phase":"\#($0.1)","x":\#($0.2),"y":\#($0.3)}"# }
    return #"{"type":"frame","seq":\#(seq),"t":\#(t),"touches":[\#(list.joined(separator: ","))]}"#
  }

  func tick(at t: Double) {
    core.advance(to: t)
    collect()
  }

  /// Everything `peer` has to receive now, as the driver would write it.
  func take(_ peer: Peer) -> [JSON] {
    collect()
    var out: [JSON] = []
    while case .message(let m, _) = core.nextWrite(for: peer.id) {
      out.append((try? JSON.parse(m.withPayload { Array($0) })) ?? .string("unparsable: \(m.text)"))
    }
    return out
  }

}

extension JSON {
  var type: String? { self["type"]?.string }
}

extension RelayAction {
  /// The peer a peer action is about.
  var peerID: PeerID? {
    switch self {
    case .pauseReading(let p), .resumeReading(let p), .kill(let p), .record(let p, _), .answerClose(let p, _, _):
      return p
    case .wake, .finished, .log, .busSubscribe, .busUnsubscribe, .busNotice, .refuseUpgrade: return nil
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

  var refusal: (request: RequestID, response: HTTPResponse)? {
    if case .refuseUpgrade(let request, let response) = self { return (request, response) }
    return nil
  }

  var closeAnswer: (peer: PeerID, code: CloseCode, reason: String)? {
    if case .answerClose(let peer, let code, let reason) = self { return (peer, code, reason) }
    return nil
  }

  var busNotice: [UInt8]? {
    if case .busNotice(let bytes) = self { return bytes }
    return nil
  }
}

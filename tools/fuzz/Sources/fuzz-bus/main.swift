import CFuzzerDriver
import Foundation
import RelayCoreForFuzzing
import TouchProtocol

/// libFuzzer target: everything a cluster node reads from Redis. The bytes are a program of
/// steps run on a fresh core set up as node "B" (observers and a source of its own), the way
/// `RedisBus` drives it:
///
///   op & 3 == 0   a data message from another node's channel: u16 length (little-endian), bytes
///                 (`busReceived(data:)`)
///   op & 3 == 1   a message on the nodes' channel: u16 length, bytes (`busReceived(notice:)`)
///   op & 3 == 2   (op >> 2) * 20 ms pass: the heartbeat (nodes silent too long die, held
///                 sources leave) and the timers
///   op & 3 == 3   a local event, (op >> 2) & 7: 0 the bus goes down, 1 it is up again, 2 an
///                 observer opens (its welcome is checked), 3 the first observer closes, then
///                 with a u16 length and text: 4 an observer sends it, 5 the local source sends
///                 it, 6 a new source opens and sends it (a hello, e.g. resuming a remote source)
///
/// A length past the input's end takes what is left. At the end, time runs past every node's
/// timeout and every resume window, and late observers open. It must never crash, hang or
/// read out of bounds (run with ASan), and what it gives local observers must be what a
/// browser accepts: every text message UTF-8 and a JSON object's braces, and what this node
/// writes itself from what it kept (welcomes) valid JSON.
///
/// `fuzz-bus --from-cluster DIR` writes seeds: programs made of the messages a real node
/// ("A", another core) publishes in a few scenarios (sources, frames and gestures, a scene, a
/// sync's announcements, a dropped source, a control and its error, a goodbye), as node B
/// receives them.
func check(_ ok: Bool, _ what: @autoclosure () -> String) {
  if !ok { fatalError("invariant broken: \(what())") }
}

/// One step of a program (the format above).
enum Step {
  case data([UInt8])
  case notice([UInt8])
  case wait(Int)
  case busDown
  case busUp
  case observerOpens
  case observerCloses
  case observerSends([UInt8])
  case sourceSends([UInt8])
  case newSource([UInt8])

  /// The steps `bytes` spell.
  static func parse(_ bytes: UnsafeRawBufferPointer) -> [Step] {
    var steps: [Step] = []
    var i = 0
    func chunk() -> [UInt8] {
      guard i + 2 <= bytes.count else {
        i = bytes.count
        return []
      }
      let n = Int(bytes[i]) | Int(bytes[i + 1]) << 8
      i += 2
      let end = min(bytes.count, i + n)
      defer { i = end }
      return Array(bytes[i..<end])
    }
    while i < bytes.count {
      let op = bytes[i]
      i += 1
      switch op & 3 {
      case 0: steps.append(.data(chunk()))
      case 1: steps.append(.notice(chunk()))
      case 2: steps.append(.wait(Int(op >> 2) * 20))
      default:
        switch (op >> 2) & 7 {
        case 0: steps.append(.busDown)
        case 1: steps.append(.busUp)
        case 2: steps.append(.observerOpens)
        case 3: steps.append(.observerCloses)
        case 4: steps.append(.observerSends(chunk()))
        case 5: steps.append(.sourceSends(chunk()))
        default: steps.append(.newSource(chunk()))
        }
      }
    }
    return steps
  }

  /// The step as bytes of a program.
  var encoded: [UInt8] {
    func withLength(_ op: UInt8, _ bytes: [UInt8]) -> [UInt8] {
      let b = bytes.prefix(0xFFFF)
      return [op, UInt8(b.count & 0xFF), UInt8(b.count >> 8)] + b
    }
    switch self {
    case .data(let b): return withLength(0, b)
    case .notice(let b): return withLength(1, b)
    case .wait(let ms):
      var out: [UInt8] = []
      var left = ms / 20
      while left > 0 {
        let n = min(left, 63)
        out.append(UInt8(n) << 2 | 2)
        left -= n
      }
      return out
    case .busDown: return [3]
    case .busUp: return [1 << 2 | 3]
    case .observerOpens: return [2 << 2 | 3]
    case .observerCloses: return [3 << 2 | 3]
    case .observerSends(let b): return withLength(4 << 2 | 3, b)
    case .sourceSends(let b): return withLength(5 << 2 | 3, b)
    case .newSource(let b): return withLength(6 << 2 | 3, b)
    }
  }
}

let hello = Array(#"{"type":"hello","device":{"name":"phone","width":400,"height":800}}"#.utf8)

/// A cluster node's core, driven as `RelayServer`'s driver drives it: subscriptions confirmed at
/// once, notices collected for whoever carries them, every observer's output taken and checked.
final class Node {
  let core: RelayCore
  private(set) var now: Double
  private(set) var observers: [PeerID] = []
  private(set) var sources: [PeerID] = []
  /// Notices the core asked to publish since the last `takeNotices`.
  private var notices: [[UInt8]] = []

  init(_ name: String, epoch: UInt64, at t: Double) {
    var c = RelayCore.Configuration()
    c.cluster = ClusterRules(node: name, epoch: epoch)
    core = RelayCore(configuration: c, at: t)
    now = t
  }

  /// The node the fuzzer feeds: "B", with a raw and a gestures-only observer of session "s",
  /// one of "t", a source of "s", and the bus up.
  static func target(at t: Double) -> Node {
    let node = Node("B", epoch: 2, at: t)
    node.openObserver("s", raw: true)
    node.openObserver("s", raw: false)
    node.openObserver("t", raw: true)
    node.openSource("s", saying: hello)
    node.core.busConnected(at: t)
    node.settle()
    return node
  }

  func openObserver(_ session: String, raw: Bool) {
    let peer = core.open(.observer(session: session, filter: ObserverFilter(raw: raw)), address: "10.0.0.1", at: now)
    observers.append(peer)
    settle(welcomeOf: peer)
  }

  func openSource(_ session: String, saying text: [UInt8]) {
    let peer = core.open(.source(session: session), address: "10.0.0.2", at: now)
    sources.append(peer)
    text.withUnsafeBytes { core.receive($0, from: peer, at: now) }
    settle()
  }

  /// Runs one step; `now` moves on by at least 1 ms each step.
  func run(_ step: Step) {
    now += 1
    switch step {
    case .data(let b): b.withUnsafeBytes { core.busReceived(data: $0, at: now) }
    case .notice(let b): b.withUnsafeBytes { core.busReceived(notice: $0, at: now) }
    case .wait(let ms):
      now += Double(ms)
      heartbeat()
    case .busDown: core.busDisconnected(at: now)
    case .busUp: core.busConnected(at: now)
    case .observerOpens: openObserver(observers.count % 2 == 0 ? "s" : "t", raw: true)
    case .observerCloses:
      if !observers.isEmpty { core.closed(observers.removeFirst(), at: now) }
    case .observerSends(let b):
      if let peer = observers.first { b.withUnsafeBytes { core.receive($0, from: peer, at: now) } }
    case .sourceSends(let b):
      if let peer = sources.first { b.withUnsafeBytes { core.receive($0, from: peer, at: now) } }
    case .newSource(let b): openSource("s", saying: b)
    }
    settle()
  }

  /// What the driver does once a second, and when a timer it was asked for is due.
  func heartbeat() {
    // Its notice comes with the actions `settle` takes.
    core.busHeartbeat(at: now)
    core.advance(to: now)
  }

  func advance(to t: Double) {
    now = max(now, t)
    heartbeat()
    settle()
  }

  /// Carries out the core's actions and takes every observer's output, checking each message.
  func settle(welcomeOf newcomer: PeerID? = nil) {
    core.drainActions { action in
      switch action {
      case .busSubscribe(let node): core.busSubscribed(node: node, at: now)
      case .busNotice(let bytes): notices.append(bytes)
      default: break
      }
    }
    core.drainOutputs { _ in }
    for peer in observers {
      var first = peer == newcomer
      while case .message(let m, _) = core.nextWrite(for: peer) {
        guard !m.isBinary else { continue }
        m.withPayload { p in
          check(UTF8Validator.isValid(p), "a message to an observer that is not UTF-8: \(m.text)")
          check(p.first == UInt8(ascii: "{") && p.last == UInt8(ascii: "}"), "not a JSON object: \(m.text)")
          if first { check(JSONSyntax.isValue(p, maxDepth: 64), "a welcome that is not JSON: \(m.text)") }
        }
        first = false
      }
    }
    for peer in sources {
      while case .message = core.nextWrite(for: peer) {}
    }
  }

  func takeNotices() -> [[UInt8]] {
    defer { notices = [] }
    return notices
  }
}

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  let bytes = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
  let node = Node.target(at: 1000)
  for step in Step.parse(bytes) { node.run(step) }
  // Past every node's timeout, then past every resume window and its grace.
  node.advance(to: node.now + 4000)
  node.advance(to: node.now + 8000)
  node.advance(to: node.now + 20_000)
  node.openObserver("s", raw: true)
  node.openObserver("t", raw: false)
  return 0
}

// MARK: - Seeds

/// Node A, a real core, and the fuzzer's node B, joined by a bus carried by hand: what A
/// publishes (and B's own events) is written down as B's program.
final class Recording {
  let a = Node("A", epoch: 1, at: 1000)
  let b = Node.target(at: 1000)
  private(set) var program: [UInt8] = []
  var sourceA: PeerID?

  init() {
    a.core.busConnected(at: 1000)
    carry()
    carry()
  }

  /// Every notice and data message each node has, handed to the other; what B gets is recorded.
  func carry() {
    a.settle()
    for n in a.takeNotices() { record(.notice(n)) }
    if let d = a.core.takeBusData() { record(.data(d)) }
    b.settle()
    for n in b.takeNotices() { n.withUnsafeBytes { a.core.busReceived(notice: $0, at: b.now) } }
    if let d = b.core.takeBusData() { d.withUnsafeBytes { a.core.busReceived(data: $0, at: b.now) } }
    a.settle()
    for n in a.takeNotices() { record(.notice(n)) }
    if let d = a.core.takeBusData() { record(.data(d)) }
  }

  /// B's own step (a local event), recorded and run.
  func record(_ step: Step) {
    program += step.encoded
    b.run(step)
  }

  func wait(_ ms: Int) {
    record(.wait(ms))
    a.advance(to: b.now)
    carry()
  }

  func sourceOnA(_ text: String, session: String = "s") {
    a.advance(to: b.now)
    a.openSource(session, saying: Array(text.utf8))
    sourceA = a.sources.last
    carry()
  }

  func frame(_ seq: Int, t: Double, _ touches: [(Int, String, Double, Double)]) {
    let list = touches.map { #"{"id":\#($0.0),"phase":"\#($0.1)","x":\#($0.2),"y":\#($0.3)}"# }
    let text = #"{"type":"frame","seq":\#(seq),"t":\#(t),"touches":[\#(list.joined(separator: ","))]}"#
    a.advance(to: b.now + 1)
    if let peer = sourceA { Array(text.utf8).withUnsafeBytes { a.core.receive($0, from: peer, at: a.now) } }
    carry()
  }

  func write(to path: String) {
    check(FileManager.default.createFile(atPath: path, contents: Data(program)), "could not write \(path)")
  }
}

let scenarios: [(String, (Recording) -> Void)] = [
  ("tap", { r in
    r.sourceOnA(String(decoding: hello, as: UTF8.self))
    r.frame(1, t: 100, [(1, "began", 120, 210)])
    r.frame(2, t: 180, [(1, "ended", 120, 210)])
    r.wait(400)
  }),
  ("pan-pinch", { r in
    r.sourceOnA(String(decoding: hello, as: UTF8.self))
    r.frame(1, t: 100, [(1, "began", 100, 100), (2, "began", 200, 200)])
    for k in 1...5 {
      let d = Double(k) * 15
      r.frame(1 + k, t: 100 + Double(k) * 16, [(1, "moved", 100 - d, 100 - d), (2, "moved", 200 + d, 200 + d)])
    }
    r.frame(7, t: 220, [(1, "ended", 25, 25), (2, "ended", 275, 275)])
  }),
  ("scene", { r in
    r.sourceOnA(
      #"{"type":"hello","device":{"name":"p","width":412,"height":915},"scene":"flatcube","config":{"tapMode":"immediate"}}"#)
    r.frame(1, t: 100, [(1, "began", 200, 400)])
    r.frame(2, t: 116, [(1, "moved", 260, 400)])
    r.frame(3, t: 132, [(1, "ended", 300, 400)])
  }),
  ("sync", { r in
    r.sourceOnA(
      #"{"type":"hello","device":{"name":"p","width":412,"height":915},"scene":"zoom"}"#, session: "t")
    r.frame(1, t: 100, [(1, "began", 200, 400)])
    // B's bus comes back: it asks every node for its sources, A announces them.
    r.record(.busDown)
    r.record(.busUp)
    r.carry()
  }),
  ("departed", { r in
    r.sourceOnA(String(decoding: hello, as: UTF8.self))
    r.frame(1, t: 100, [(1, "began", 100, 100)])
    for k in 1...4 { r.frame(1 + k, t: 100 + Double(k) * 16, [(1, "moved", 100 + Double(k) * 20, 100)]) }
    // Dropped without a close handshake: held for a resume, which B then takes.
    if let s = r.sourceA { r.a.core.closed(s, at: r.a.now) }
    r.carry()
    let id = "A.s1"
    r.record(.newSource(Array(
      #"{"type":"hello","device":{"name":"phone","width":400,"height":800},"resume":"\#(id)"}"#.utf8)))
    r.carry()
  }),
  ("control", { r in
    r.sourceOnA(String(decoding: hello, as: UTF8.self))
    r.record(.observerSends(Array(#"{"type":"control","action":"reset","source":"A.s1"}"#.utf8)))
    r.carry()
    r.record(.observerSends(Array(#"{"type":"control","action":"nonsense","source":"A.s1"}"#.utf8)))
    r.carry()
  }),
  ("silent-then-bye", { r in
    r.sourceOnA(String(decoding: hello, as: UTF8.self))
    r.frame(1, t: 100, [(1, "began", 100, 100)])
    // A falls silent past the timeout (B's heartbeats only), then says goodbye.
    r.record(.wait(1260))
    r.record(.wait(1260))
    r.record(.wait(1260))
    if let bye = r.a.core.busGoodbye { r.record(.notice(bye)) }
  }),
]

let args = CommandLine.arguments
if args.count == 3, args[1] == "--from-cluster" {
  try FileManager.default.createDirectory(atPath: args[2], withIntermediateDirectories: true)
  for (name, scenario) in scenarios {
    let r = Recording()
    scenario(r)
    r.write(to: "\(args[2])/\(name)")
  }
  exit(0)
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })

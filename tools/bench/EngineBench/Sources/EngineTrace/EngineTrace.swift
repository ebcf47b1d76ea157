import Foundation
import GestureEngine
import TouchProtocol

/// A realistic mixed trace for one source at 60 Hz on a 412x915 phone: single taps,
/// two-finger taps, one-finger pans, two-finger pinches and three-finger pans, with the
/// quiet time between gestures a phone would have (no frames while no finger is down).
/// Deterministic (seeded), so every run measures the same work.
public struct EngineTrace: Sendable {
  public let hello: Hello
  public let frames: [Frame]
  /// Touch points over all frames: the unit of "ns per touch point".
  public let touchPoints: Int
  /// Gesture events, errors and scene states the engine produced for the trace, as a check
  /// that the engine did recognize gestures (not just ignored the input).
  public let events: Int

  public init(gestures: Int = 400, seed: UInt64 = 42) {
    hello = Hello(device: Device(name: "bench", width: 412, height: 915))
    var rng = SplitMix(seed: seed)
    var frames: [Frame] = []
    var t = 1000.0
    var seq: Int64 = 0
    var nextID: Int64 = 1
    let period = 1000.0 / 60
    for _ in 0..<gestures {
      let kind = rng.below(10)
      let fingers: Int
      let duration: Double
      let motion: (Double, Int) -> (dx: Double, dy: Double)
      let cx = 80 + rng.unit() * 252
      let cy = 120 + rng.unit() * 675
      switch kind {
      case 0...2:  // tap: one finger, short, nearly still
        fingers = 1
        duration = 60 + rng.unit() * 50
        motion = { p, _ in (p * 1.5, p) }
      case 3:  // two-finger tap
        fingers = 2
        duration = 70 + rng.unit() * 40
        motion = { p, _ in (p, p * 1.2) }
      case 4...6:  // pan: one finger
        fingers = 1
        duration = 350 + rng.unit() * 450
        let angle = rng.unit() * 2 * .pi
        let dist = 120 + rng.unit() * 180
        motion = { p, _ in
          let e = p * p * (3 - 2 * p)
          return (cos(angle) * dist * e, sin(angle) * dist * e)
        }
      case 7...8:  // pinch: two fingers moving apart or together
        fingers = 2
        duration = 400 + rng.unit() * 400
        let scale = rng.below(2) == 0 ? 1.9 : 0.5
        let angle = rng.unit() * .pi
        motion = { p, i in
          let spread = 100 * (1 + (scale - 1) * p) / 2
          let s = i == 0 ? 1.0 : -1.0
          return (s * cos(angle) * spread, s * sin(angle) * spread)
        }
      default:  // three-finger pan
        fingers = 3
        duration = 400 + rng.unit() * 300
        let dx = rng.unit() * 200 - 100
        let dy = rng.unit() * 300 - 150
        motion = { p, i in (dx * p + Double(i) * 40, dy * p + Double(i) * 8) }
      }
      let ids = (0..<fingers).map { nextID + Int64($0) }
      nextID += Int64(fingers)
      let steps = max(2, Int((duration / period).rounded()))
      for step in 0...steps {
        let p = Double(step) / Double(steps)
        var touches: [TouchPoint] = []
        touches.reserveCapacity(fingers)
        for (i, id) in ids.enumerated() {
          let m = motion(p, i)
          let phase: TouchPhase = step == 0 ? .began : step == steps ? .ended : .moved
          touches.append(
            TouchPoint(
              id: id, phase: phase, x: ((cx + m.dx) * 10).rounded() / 10,
              y: ((cy + m.dy) * 10).rounded() / 10, force: nil, radiusX: 9, radiusY: 9))
        }
        seq += 1
        frames.append(Frame(seq: seq, t: t, touches: touches))
        t += period
      }
      // Quiet time after the gesture, longer than the double-tap wait so taps stand alone.
      t += 350 + rng.unit() * 300
    }
    self.frames = frames
    touchPoints = frames.reduce(0) { $0 + $1.touches.count }
    var engine = SourceEngine(hello: hello, maxFingers: 10)
    var events = 0
    for f in frames {
      let out = engine.process(f)
      events += out.events.count + out.errors.count + (out.scene == nil ? 0 : 1)
    }
    if let d = engine.nextDeadline { events += engine.advance(to: d).events.count }
    self.events = events
  }

  /// Runs the whole trace through a fresh engine, as one source's connection does.
  /// Returns a checksum so the work cannot be optimized away.
  @inline(never)
  public func run() -> Int {
    var engine = SourceEngine(hello: hello, maxFingers: 10)
    var scratch = FrameScratch()
    var n = 0
    for f in frames {
      let out = engine.process(f, scratch: &scratch)
      n &+= out.events.count &+ out.errors.count
    }
    return n
  }
}

/// Many sources' engines fed in turn, one frame each, as the server feeds them: between two
/// frames of one source the other sources' state has gone through the cache, so this is the
/// engine's cost when its state is cold (the timed loop above keeps one engine hot).
public final class InterleavedEngines {
  let trace: EngineTrace
  private var engines: [SourceEngine]
  private var scratch = FrameScratch()
  private var next = 0

  public init(trace: EngineTrace, count: Int) {
    self.trace = trace
    engines = (0..<count).map { _ in SourceEngine(hello: trace.hello, maxFingers: 10) }
  }

  public var count: Int { engines.count }

  /// The next `frames` frames of the trace through every engine in turn; returns the touch
  /// points processed (a checksum of the output goes to `sink`). At the trace's end the
  /// engines start over.
  @inline(never)
  public func run(frames: Int, sink: inout Int) -> Int {
    var points = 0
    for _ in 0..<frames {
      if next == trace.frames.count {
        next = 0
        for i in engines.indices { engines[i] = SourceEngine(hello: trace.hello, maxFingers: 10) }
      }
      let f = trace.frames[next]
      next += 1
      for i in engines.indices {
        let out = engines[i].process(f, scratch: &scratch)
        sink &+= out.events.count
      }
      points += f.touches.count * engines.count
    }
    return points
  }
}

/// Small `frame` messages as phones send them (1 to 3 touches), and a Codable mirror of the
/// frame for Foundation's JSONDecoder.
public enum SmallFrames {
  public static let messages: [[UInt8]] = [
    #"{"type":"frame","seq":7,"t":18234.5,"touches":[{"id":1,"phase":"began","x":120.5,"y":210}]}"#,
    #"{"type":"frame","seq":8,"t":18251.2,"touches":[{"id":1,"phase":"moved","x":124,"y":214.25,"force":0.5,"radiusX":11.5,"radiusY":null},{"id":2,"phase":"began","x":260,"y":380,"force":null}]}"#,
    #"{"type":"frame","seq":9,"t":18267.9,"touches":[{"id":1,"phase":"moved","x":131.2,"y":220.8,"radiusX":9,"radiusY":9},{"id":2,"phase":"moved","x":255.6,"y":371.1,"radiusX":9,"radiusY":9},{"id":3,"phase":"began","x":300.4,"y":402.9,"radiusX":9,"radiusY":9}]}"#,
    #"{"type":"frame","seq":10,"t":18284.6,"touches":[{"id":1,"phase":"ended","x":133,"y":222.5}]}"#,
  ].map { Array($0.utf8) }

  public struct CodableTouch: Codable {
    public var id: Int64
    public var phase: String
    public var x: Double
    public var y: Double
    public var force: Double?
    public var radiusX: Double?
    public var radiusY: Double?
  }

  public struct CodableFrame: Codable {
    public var type: String
    public var seq: Int64
    public var t: Double
    public var touches: [CodableTouch]
  }

  /// One pass of every message through MessageDecoder; returns a checksum.
  @inline(never)
  public static func decodeAll(_ decoder: MessageDecoder, _ datas: [[UInt8]]) -> Int {
    var n = 0
    for m in datas {
      if case .success(.frame(let f)) = decoder.decode(m) { n &+= f.touches.count } else { n &+= 1000 }
    }
    return n
  }

  /// One pass of every message through Foundation's JSONDecoder; returns a checksum.
  @inline(never)
  public static func decodeAllFoundation(_ decoder: JSONDecoder, _ datas: [Data]) -> Int {
    var n = 0
    for d in datas {
      if let f = try? decoder.decode(CodableFrame.self, from: d) { n &+= f.touches.count } else { n &+= 1000 }
    }
    return n
  }
}

/// SplitMix64: small, fast, seeded.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

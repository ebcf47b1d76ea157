import GestureEngine
import Testing
import TouchProtocol

/// Inputs found by `tools/fuzz` (fuzz-engine) that broke an engine promise, kept as tests.
@Suite struct FuzzRegressionTests {
  private static let phone = Device(name: "fuzz", width: 390, height: 844)

  private static func frame(_ seq: Int64, _ t: Double, _ touches: [(Int64, TouchPhase, Double, Double)])
    -> Frame
  {
    Frame(seq: seq, t: t, touches: touches.map { TouchPoint(id: $0.0, phase: $0.1, x: $0.2, y: $0.3) })
  }

  private static func numbers(_ e: GestureEvent) -> [Double] {
    var n = [e.t, e.x, e.y]
    if let v = e.translation { n += [v.x, v.y] }
    if let v = e.velocity { n += [v.x, v.y] }
    n += [e.scale, e.rotation, e.rate].compactMap { $0 }
    for f in e.fingers ?? [] { n += [f.x, f.y] }
    return n
  }

  private static func numbers(_ v: JSONValue?) -> [Double] {
    switch v {
    case .number(let d): return [d]
    case .array(let a): return a.flatMap { numbers($0) }
    case .object(let m): return m.flatMap { numbers($0.1) }
    default: return []
    }
  }

  /// Runs the frames (then `cancelAll`) and returns every number the engine handed out, and how
  /// many gesture events it gave.
  private static func run(scene: String?, _ frames: [Frame]) -> (numbers: [Double], events: Int) {
    var engine = SourceEngine(hello: Hello(device: phone, scene: scene), maxFingers: 10)
    var out: [Double] = numbers(engine.sceneState)
    var outputs: [EngineOutput] = []
    for f in frames {
      outputs.append(engine.process(f))
      if let d = engine.nextDeadline { outputs.append(engine.advance(to: d)) }
    }
    outputs.append(engine.cancelAll(at: frames.last?.t ?? 0))
    for o in outputs {
      out += o.events.flatMap(numbers)
      out += numbers(o.scene)
    }
    return (out, outputs.reduce(0) { $0 + $1.events.count })
  }

  /// crash-2b02a169…: a pan whose finger jumps to 1e308 within 1e-306 ms had an infinite
  /// velocity, which the server wrote as `null`. Now clamped to the largest finite double.
  @Test func panOverATinyIntervalHasAFiniteVelocity() {
    let got = Self.run(
      scene: nil,
      [
        Self.frame(1, 0, [(5, .began, 0, 0)]),
        Self.frame(2, 1.3499105104298583e-306, [(5, .moved, 1e308, 1e308)]),
        Self.frame(3, 2e-306, [(5, .moved, -1e308, -1e308)]),
        Self.frame(4, 3e-306, [(5, .ended, -1e308, -1e308)]),
      ])
    #expect(got.events > 0)
    #expect(got.numbers.allSatisfy { $0.isFinite }, "\(got.numbers.filter { !$0.isFinite })")
  }

  /// Translations between the two ends of the double range overflow; so may a pinch's scale
  /// from two fingers on one spot and a rotation rate over no time.
  @Test(arguments: [nil, "flatcube", "zoom", "sketch"] as [String?])
  func extremeCoordinatesGiveFiniteNumbersInEveryScene(scene: String?) {
    let m = Double.greatestFiniteMagnitude
    let got = Self.run(
      scene: scene,
      [
        Self.frame(1, 0, [(1, .began, -m, -m), (2, .began, -m, -m)]),
        Self.frame(2, .leastNonzeroMagnitude, [(1, .moved, m, m), (2, .moved, -m, m)]),
        Self.frame(3, 2 * .leastNonzeroMagnitude, [(1, .moved, -m, m), (2, .moved, m, -m)]),
        Self.frame(4, 1e308, [(1, .moved, 0, 0), (2, .moved, m, m)]),
        Self.frame(5, m, [(1, .ended, 0, 0), (2, .ended, m, m)]),
      ])
    // The two fingers' moves are recognized (pan, pinch, rotation): their numbers are the ones
    // that overflow, so none coming out would check nothing.
    #expect(got.events > 0, "no gesture came out")
    #expect(got.numbers.allSatisfy { $0.isFinite }, "\(got.numbers.filter { !$0.isFinite })")
  }
}

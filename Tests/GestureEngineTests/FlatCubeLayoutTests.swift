import GestureEngine
import Testing
import TouchProtocol

/// flatcube's default layout (a hello without regions) on the surfaces phones and tablets have:
/// every square inside the surface, every pair overlapping, the three overlapping together,
/// and the taps the scene counts landing where a person would put them.
@Suite struct FlatCubeLayoutTests {
  struct Square: CustomStringConvertible {
    var id: String
    var x: Double, y: Double, width: Double, height: Double
    var description: String { "\(id) \(x)…\(x + width) × \(y)…\(y + height)" }

    func overlap(_ o: Square) -> Square {
      let x0 = max(x, o.x)
      let y0 = max(y, o.y)
      return Square(
        id: id + "&" + o.id, x: x0, y: y0, width: min(x + width, o.x + o.width) - x0,
        height: min(y + height, o.y + o.height) - y0)
    }
  }

  static func layout(_ width: Double, _ height: Double) throws -> [Square] {
    let engine = SourceEngine(
      hello: Hello(device: Device(name: "t", width: width, height: height), scene: "flatcube"), maxFingers: 10)
    guard case .array(let regions)? = engine.sceneState?["regions"] else {
      throw ProtocolError(.badValue, "no regions")
    }
    return regions.map { r in
      func n(_ k: String) -> Double {
        if case .number(let v)? = r[k] { return v }
        return .nan
      }
      var id = ""
      if case .string(let s)? = r["id"] { id = s }
      return Square(id: id, x: n("x"), y: n("y"), width: n("width"), height: n("height"))
    }
  }

  /// Phones upright and on their side (320 points wide is the narrowest iPhone), tablets, a
  /// desktop window, and surfaces far from a phone's shape.
  static let surfaces: [(Double, Double)] = [
    (320, 568), (568, 320), (375, 667), (390, 844), (844, 390), (430, 932), (360, 800), (412, 915),
    (768, 1024), (1024, 1366), (1366, 1024), (1920, 1080), (320, 320), (320, 2000), (2000, 320),
  ]

  @Test(arguments: surfaces)
  func everySquareFitsAndEveryOverlapIsThere(width: Double, height: Double) throws {
    let squares = try Self.layout(width, height)
    #expect(squares.map(\.id) == ["red", "yellowLeft", "yellowRight"])
    for s in squares {
      #expect(s.x >= 0 && s.y >= 0, "\(s) on \(width)×\(height)")
      #expect(s.x + s.width <= width && s.y + s.height <= height, "\(s) on \(width)×\(height)")
      // Big enough for a finger (Apple's 44-point targets) on the smallest surface.
      #expect(s.width >= 44 && s.height >= 44, "\(s)")
    }
    let (red, left, right) = (squares[0], squares[1], squares[2])
    // Room for a fingertip in each overlap: at least 22 points each way.
    for o in [red.overlap(left), red.overlap(right), left.overlap(right), red.overlap(left).overlap(right)] {
      #expect(o.width >= 22 && o.height >= 22, "\(o) on \(width)×\(height)")
    }
  }

  /// On the phone of the issue (390 × 844) the right yellow square ends inside the surface, and
  /// a two-finger tap with one finger in each yellow square's own part counts as yellow.
  @Test func theYellowSquaresOfA390By844PhoneAreTappable() throws {
    let squares = try Self.layout(390, 844)
    let (left, right) = (squares[1], squares[2])
    #expect(right.x + right.width <= 390)
    var engine = SourceEngine(
      hello: Hello(device: Device(name: "t", width: 390, height: 844), scene: "flatcube"), maxFingers: 10)
    let a = (left.x + 5, left.y + left.height - 5)
    let b = (right.x + right.width - 5, right.y + right.height - 5)
    _ = engine.process(
      Frame(
        seq: 1, t: 0,
        touches: [
          TouchPoint(id: 1, phase: .began, x: a.0, y: a.1), TouchPoint(id: 2, phase: .began, x: b.0, y: b.1),
        ]))
    let out = engine.process(
      Frame(
        seq: 2, t: 60,
        touches: [
          TouchPoint(id: 1, phase: .ended, x: a.0, y: a.1), TouchPoint(id: 2, phase: .ended, x: b.0, y: b.1),
        ]))
    guard case .number(let yellow)? = out.scene?["counters"]?["yellow"] else {
      Issue.record("no scene state after the tap: \(out)")
      return
    }
    #expect(yellow == 1)
  }
}

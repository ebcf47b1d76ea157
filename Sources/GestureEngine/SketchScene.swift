import TouchProtocol

/// Articles 003 and 004: every finger draws its own line, keyed by its touch id.
///
/// A finger that stays within the tap tolerance draws nothing (the double tap delays
/// touchesBegan, so the first tap draws no dot). A double tap clears every line; a tap
/// selects the line within 20 pt of it (or clears the selection); a long press cancels its
/// own finger's line and selects the line under it until it ends; while it is held, a pan
/// moves the selected line by each step of its translation. The `delete` action removes the
/// selected line and `clear` every line.
///
/// A line drawn with pressure (a pen's) is as wide as it was pressed: its state has one width
/// per point (gestures.md, sketch, "Width from pressure"); one without has none, as before.
struct SketchScene: Sendable {
  static let name = "sketch"
  static let selectDistance = 20.0
  /// A line's width without pressure, in points, as the pages draw it.
  static let lineWidth = 4.0

  struct Point: Sendable, Equatable {
    var x: Double
    var y: Double
    /// The touch's pressure at this point, NaN when it had none.
    var pressure = Double.nan
  }

  struct Line: Sendable {
    var points: [Point]
    /// Some point has a pressure: the state gives the line's widths.
    var hasPressure: Bool

    init(_ first: Point) {
      points = [first]
      hasPressure = !first.pressure.isNaN
    }

    mutating func append(_ p: Point) {
      points.append(p)
      if !p.pressure.isNaN { hasPressure = true }
    }
  }

  private(set) var lines: [Line] = []
  private(set) var selected: Int?
  /// Lines being drawn, by touch id, in landing order.
  private var drawing: [(id: Int64, line: Line)] = []
  private var longPressActive = false
  /// Where the long press began: the pan moves the line by the finger's travel since then.
  private var pressX = 0.0
  private var pressY = 0.0
  private var lastPanTranslation = Vector(x: 0, y: 0)

  init() {}

  mutating func consume(_ note: ArenaNote) -> Bool {
    switch note {
    case .fingerLanded(let id, let x, let y, let pressure):
      drawing.append((id, Line(Point(x: x, y: y, pressure: pressure))))
      return true
    case .fingerMoved(let id, let x, let y, let pressure):
      guard let i = drawing.firstIndex(where: { $0.id == id }) else { return false }
      drawing[i].line.append(Point(x: x, y: y, pressure: pressure))
      return true
    case .fingerLifted(let id, let tapSlop):
      guard let i = drawing.firstIndex(where: { $0.id == id }) else { return false }
      let line = drawing.remove(at: i).line
      if !tapSlop && line.points.count >= 2 { lines.append(line) }
      return true
    case .fingerCancelled(let id):
      guard let i = drawing.firstIndex(where: { $0.id == id }) else { return false }
      drawing.remove(at: i)
      return true
    case .sequenceEnded:
      return false
    case .gesture(let e):
      return consume(e)
    }
  }

  private mutating func consume(_ e: GestureEvent) -> Bool {
    switch (e.gesture, e.state) {
    case (.tap, _) where e.touches == 1 && e.taps == 2:
      let changed = !lines.isEmpty || selected != nil
      lines.removeAll()
      selected = nil
      return changed
    case (.tap, _) where e.touches == 1 && e.taps == 1:
      let next = nearestLine(e.x, e.y)
      defer { selected = next }
      return next != selected
    case (.longpress, .began):
      longPressActive = true
      // A long press takes its finger away from drawing (cancelsTouchesInView in article 003).
      if let f = e.fingers?.first { drawing.removeAll { $0.id == f.id } }
      selected = nearestLine(e.x, e.y)
      pressX = e.x
      pressY = e.y
      return true
    case (.longpress, .ended), (.longpress, .cancelled):
      longPressActive = false
      let changed = selected != nil
      selected = nil
      return changed
    case (.pan, .began):
      lastPanTranslation = e.translation ?? Vector(x: 0, y: 0)
      // The finger already travelled from where the press began to where the pan began.
      return moveSelected(e.x - pressX, e.y - pressY)
    case (.pan, .changed), (.pan, .ended):
      let tr = e.translation ?? lastPanTranslation
      let dx = tr.x - lastPanTranslation.x
      let dy = tr.y - lastPanTranslation.y
      lastPanTranslation = tr
      return moveSelected(dx, dy)
    default:
      return false
    }
  }

  /// Moves the selected line while a long press holds it (the pan reports steps).
  private mutating func moveSelected(_ dx: Double, _ dy: Double) -> Bool {
    guard longPressActive, let s = selected, dx != 0 || dy != 0 else { return false }
    for i in lines[s].points.indices {
      lines[s].points[i].x += dx
      lines[s].points[i].y += dy
    }
    return true
  }

  /// The line with a segment nearest to the point, if within 20 pt.
  private func nearestLine(_ x: Double, _ y: Double) -> Int? {
    var best: (Int, Double)?
    for (i, drawn) in lines.enumerated() {
      let line = drawn.points
      var d = Double.infinity
      for j in line.indices {
        let a = line[j]
        let b = j + 1 < line.count ? line[j + 1] : a
        d = min(d, Geometry.distance(fromX: x, y: y, toSegment: a.x, a.y, b.x, b.y))
      }
      if d <= Self.selectDistance, best == nil || d < best!.1 { best = (i, d) }
    }
    return best?.0
  }

  mutating func control(_ c: Control) -> Result<Bool, ProtocolError> {
    if c.recognizeAny != nil {
      return .failure(ProtocolError(.unknownAction, "sketch has no 'recognizeAny' switch"))
    }
    switch c.action {
    case nil:
      return .success(false)
    case "clear"?:
      let changed = !lines.isEmpty || selected != nil
      lines.removeAll()
      selected = nil
      return .success(changed)
    case "delete"?:
      guard let s = selected else { return .success(false) }
      lines.remove(at: s)
      selected = nil
      return .success(true)
    case let other?:
      return .failure(
        ProtocolError(
          .unknownAction, "sketch has no action '\(other.prefix(64))'; it has 'clear' and 'delete'")
      )
    }
  }

  /// A point's width in points: 4 × (0.25 + 1.5 × pressure), so 0.5 (Pointer Events' value for
  /// a device that cannot tell) is the width without pressure, 0 a quarter of it, 1 × 1.75.
  static func width(_ pressure: Double) -> Double {
    pressure.isNaN ? lineWidth : lineWidth * (0.25 + 1.5 * pressure)
  }

  /// `points`, and `widths` only when some point had a pressure (else today's bytes exactly).
  private static func members(_ line: Line) -> [(String, JSONValue)] {
    var m: [(String, JSONValue)] = [("points", .array(line.points.map { SceneJSON.point($0.x, $0.y) }))]
    if line.hasPressure { m.append(("widths", .array(line.points.map { .number(width($0.pressure)) }))) }
    return m
  }

  var state: JSONValue {
    .object([
      ("scene", .string(Self.name)),
      ("lines", .array(lines.map { .object(Self.members($0)) })),
      ("selected", selected.map { .number(Double($0)) } ?? .null),
      (
        "drawing",
        .array(drawing.map { d in .object([("touch", .number(Double(d.id)))] + Self.members(d.line)) })
      ),
    ])
  }
}

import TouchProtocol

/// Shapes drawn by example (`hello.config.shapes`, protocol/gestures.md "Shapes"): collects the
/// strokes of one finger at a time into a drawing and, once no new stroke began within
/// `strokeGap` of the last lift, reports the template it is most like, if it scores at least
/// `minScore`. It reads the frames beside the arena and never claims a touch: the pan the
/// stroke also was is reported as without shapes. Only made when the source has templates,
/// so a source without them pays one test per frame. Pure: time is the frames' `t`.
struct ShapeTracker: Sendable {
  /// Time after a lift within which the next stroke must begin to belong to the same drawing.
  static let defaultStrokeGap = 500.0
  static let defaultMinScore = 0.8
  /// Points kept of one drawing: beyond it every second point is dropped and only every
  /// second new one kept, so a long scribble costs bounded memory and the resampling to 32
  /// points sees the same path, coarser.
  static let maxDrawingPoints = 1024

  struct Template: Sendable {
    var name: String
    var cloud: PointCloud
  }

  private let templates: [Template]
  private let strokeGap: Double
  private let minScore: Double
  /// A stroke that stays within this of where it landed is a tap, never part of a shape.
  private let tapSlop: Double

  /// The finished strokes of the drawing under way.
  private var strokes: [[(x: Double, y: Double)]] = []
  private var points = 0
  /// Keep one new point in `stride` (doubled each time the drawing outgrows its bound).
  private var stride = 1
  private var skipped = 0
  private var current: [(x: Double, y: Double)] = []
  private var currentID: Int64?
  /// Touches down now, as this tracker saw them begin.
  private var down: [Int64] = []
  /// Two fingers were down at once, or one was cancelled: the drawing counts for nothing.
  private var spoiled = false
  private var lastLift: Double?
  private(set) var found: [ShapeEvent] = []

  /// Nil when the source has no usable template: the engine then has no tracker at all.
  init?(config: GestureConfig?, tapSlop: Double) {
    guard let c = config, let shapes = c.shapes, !shapes.isEmpty else { return nil }
    templates = shapes.compactMap { s in
      PointCloud(strokes: s.strokes.map { $0.map { p in (x: p[0], y: p[1]) } }).map {
        Template(name: s.name, cloud: $0)
      }
    }
    guard !templates.isEmpty else { return nil }
    strokeGap = c.shapeStrokeGap ?? Self.defaultStrokeGap
    minScore = c.shapeMinScore ?? Self.defaultMinScore
    self.tapSlop = tapSlop
  }

  /// When the drawing under way is judged: `strokeGap` after the last lift, once no finger
  /// is down.
  var deadline: Double? {
    guard down.isEmpty, !strokes.isEmpty, let lift = lastLift else { return nil }
    return lift + strokeGap
  }

  /// `palms`: ids of the frame's palm entries (`PalmFilter`): no strokes. A finger that
  /// turns into one is cancelled, as the engine cancels it.
  mutating func apply(_ frame: Frame, palms: [Int64] = []) {
    let t = frame.t
    for var p in frame.touches {
      if !palms.isEmpty && palms.contains(p.id) {
        guard down.contains(p.id) else { continue }
        p.phase = .cancelled
      }
      switch p.phase {
      case .began:
        guard !down.contains(p.id) else { continue }
        down.append(p.id)
        if down.count > 1 {
          spoiled = true
        } else {
          currentID = p.id
          current = [(x: p.x, y: p.y)]
        }
      case .moved, .stationary:
        if p.id == currentID, !spoiled { add((x: p.x, y: p.y)) }
      case .ended, .cancelled:
        guard let i = down.firstIndex(of: p.id) else { continue }
        down.remove(at: i)
        if p.phase == .cancelled { spoiled = true }
        if p.id == currentID {
          currentID = nil
          if !spoiled {
            add((x: p.x, y: p.y), always: true)
            finishStroke(at: t)
          }
        }
        if spoiled && down.isEmpty { reset() }
      }
    }
  }

  /// Judges the drawing if its deadline is due: before `t`, or at it when `inclusive`.
  mutating func fire(until t: Double, inclusive: Bool) {
    guard let d = deadline, inclusive ? d <= t : d < t else { return }
    judge(at: d)
  }

  /// The connection is closing: a drawing whose strokes all ended is judged, since it was
  /// drawn; one with a finger still down is not.
  mutating func cancelAll(at t: Double) {
    if let d = deadline { judge(at: min(d, t)) }
    reset()
    down = []
  }

  mutating func takeFound() -> [ShapeEvent] {
    guard !found.isEmpty else { return [] }
    defer { found = [] }
    return found
  }

  /// `always`: a stroke's end, kept whatever the stride.
  private mutating func add(_ p: (x: Double, y: Double), always: Bool = false) {
    skipped += 1
    guard always || skipped >= stride else { return }
    skipped = 0
    current.append(p)
    if points + current.count > Self.maxDrawingPoints { thin() }
  }

  /// Every second point of the drawing dropped (each stroke keeps its ends).
  private mutating func thin() {
    func halve(_ s: [(x: Double, y: Double)]) -> [(x: Double, y: Double)] {
      guard s.count > 2 else { return s }
      var out = Swift.stride(from: 0, to: s.count - 1, by: 2).map { s[$0] }
      out.append(s[s.count - 1])
      return out
    }
    strokes = strokes.map(halve)
    current = halve(current)
    points = strokes.reduce(0) { $0 + $1.count }
    stride *= 2
  }

  private mutating func finishStroke(at t: Double) {
    let first = current[0]
    let isTap = current.allSatisfy { Geometry.distance($0.x - first.x, $0.y - first.y) <= tapSlop }
    // A tap between strokes neither joins the drawing nor keeps it open longer. A stroke that
    // begins later than the gap finds the drawing already judged: the caller runs the timers
    // due before a frame first.
    if !isTap {
      strokes.append(current)
      points += current.count
      lastLift = t
    }
    current = []
  }

  /// The event's `id` and `regions` are the engine's to fill (it numbers every gesture).
  private mutating func judge(at t: Double) {
    defer { reset() }
    guard let cloud = PointCloud(strokes: strokes) else { return }
    var best = Double.infinity
    var name = ""
    for tpl in templates {
      let d = cloud.distance(to: tpl.cloud)
      if d < best {
        best = d
        name = tpl.name
      }
    }
    let score = Self.score(distance: best)
    guard score >= minScore else { return }
    var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
    for s in strokes {
      for p in s {
        minX = min(minX, p.x)
        maxX = max(maxX, p.x)
        minY = min(minY, p.y)
        maxY = max(maxY, p.y)
      }
    }
    // Clamped: the width of a drawing from -1e308 to 1e308 is not finite (see `Finite`).
    var e = ShapeEvent(
      id: 0, t: Finite.clamp(t), name: name, score: score, left: minX, top: minY,
      width: Finite.clamp(maxX - minX), height: Finite.clamp(maxY - minY))
    e.x = Finite.clamp(minX / 2 + maxX / 2)
    e.y = Finite.clamp(minY / 2 + maxY / 2)
    found.append(e)
  }

  /// The score of a $P distance (the weighted mean distance between matched points, in the
  /// unit box): 1 − d / 0.5, at least 0. A drawing identical to the template scores 1; one
  /// whose points lie on average half the box's side from their match, 0.
  static func score(distance d: Double) -> Double { max(0, min(1, 1 - d / 0.5)) }

  private mutating func reset() {
    strokes = []
    current = []
    currentID = nil
    points = 0
    stride = 1
    skipped = 0
    lastLift = nil
    spoiled = false
  }
}

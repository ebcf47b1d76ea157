import TouchProtocol

/// The gesture engine of one source connection: frames and timer ticks in, gesture events,
/// errors for the source and scene state out. Pure: no I/O, no clock (time is the frame's
/// `t`, device milliseconds), so the same input always gives the same output.
public struct SourceEngine: Sendable {
  public static let sceneNames: [String] = ActiveScene.names

  // The two scalars every frame reads or writes come first, in the engine's first cache line
  // (which the server prefetches); declared after the arena they sat on a line of their
  // own, one more miss per frame.
  /// The finger limit in force: the server's, lowered by the hello's. Stored, not computed
  /// per frame, because reading it out of `hello.config` copied the whole config each time.
  private var maxFingers: Int
  /// The earliest pending timer (device ms), nil if none. Stored, updated by every mutating
  /// call: computed, reading it from an engine held in a class copied the whole engine on
  /// every frame.
  public private(set) var nextDeadline: Double?
  /// `shapes` is set: tested on every frame, so it sits in the first line (in what was the
  /// deadline's padding), and a source without shapes never reads the tracker's cold lines.
  private var hasShapes = false
  // Palm rejection's state, tested on every frame, in the same padding: one byte says what
  // the next frame needs (`PalmStep`), so a frame without a described touch (`details`),
  // while no palm is down, costs one test and one pass over its touches.
  /// What `process` does for the next frame's palms.
  private var palmStep = PalmStep.scan
  /// What it does once a frame `markPalms` classified has been processed.
  private var palmBase = PalmStep.scan
  private var arena: GestureArena<StandardTable>
  private var scene: ActiveScene?
  private var hello: Hello
  private let serverMaxFingers: Int
  /// Shapes drawn by example, when the source sent templates (and `recognizers` allows them).
  private var shapes: ShapeTracker?
  /// Which touches are palms (`config.palm`): the engine sees no finger for them.
  private var palms: PalmFilter

  /// `maxFingers` is the server's limit; `hello.config.maxFingers` may lower it.
  public init(hello: Hello, maxFingers: Int) {
    self.hello = hello
    serverMaxFingers = max(1, maxFingers)
    self.maxFingers = Self.maxFingers(hello, server: serverMaxFingers)
    let scene = ActiveScene(
      name: hello.scene, device: hello.device,
      regions: Self.regions(for: hello, sceneName: hello.scene))
    self.scene = scene
    arena = GestureArena(
      settings: GestureSettings(
        config: hello.config, defaultTapMaxCount: scene?.defaultTapMaxCount ?? 2),
      regions: RegionMap(regions: Self.regions(for: hello, sceneName: scene?.name)))
    arena.ctx.log.recordsNotes = scene != nil
    shapes = Self.shapeTracker(hello.config, arena.ctx.settings)
    hasShapes = shapes != nil
    palms = PalmFilter(config: hello.config?.palm)
    palmBase = Self.palmStep(palms)
    palmStep = palmBase
  }

  private static func shapeTracker(_ config: GestureConfig?, _ settings: GestureSettings) -> ShapeTracker? {
    guard settings.enabled.contains(.shape) else { return nil }
    return ShapeTracker(config: config, tapSlop: settings.tapMaxMovement)
  }

  /// "flatcube", "zoom", "sketch", or nil when the source runs no (known) scene.
  public var sceneName: String? { scene?.name }

  /// The scene's state now, for an observer's `welcome`.
  public var sceneState: JSONValue? { state }

  /// The scene's state with every number finite (see `Finite`).
  private var state: JSONValue? { scene.map { Finite.clamped($0.state) } }

  /// Touches sent but ignored because their id was not down (diagnostics).
  public var unknownTouchCount: Int { arena.ctx.table.unknownTouchCount }

  /// Fingers down now.
  public var fingersDown: Int { arena.fingerCount }

  /// Hands `body` the address and size of each heap buffer the next frame reads first, for a
  /// caller that runs many engines and wants them loaded while it does other work (their
  /// cache misses otherwise stall the engine). Hints only: valid until the engine changes.
  /// Mutating only so a caller holding the engine in a class does not copy it to ask.
  public mutating func withHotBuffers(_ body: (UnsafeRawPointer, Int) -> Void) {
    arena.withHotBuffers(body)
  }

  private static func maxFingers(_ hello: Hello, server: Int) -> Int {
    min(server, max(1, hello.config?.maxFingers ?? server))
  }

  /// The regions hit-testing uses: the source's own, or flatcube's default layout.
  private static func regions(for hello: Hello, sceneName: String?) -> [Region] {
    if let r = hello.regions { return r }
    if sceneName == FlatCubeScene.name { return FlatCubeScene.defaultRegions(hello.device) }
    return []
  }

  /// A repeated hello: new surface, regions, config or scene. Regions apply at once; config
  /// from the next touch sequence; a different scene starts fresh.
  public mutating func update(hello next: Hello) -> EngineOutput {
    var out = EngineOutput()
    // A hello naming a scene this engine does not have is refused whole (protocol/README.md):
    // the source keeps its previous hello, scene and settings.
    if let name = next.scene, !Self.sceneNames.contains(name) {
      out.errors.append(
        ProtocolError(
          .unknownScene, "unknown scene '\(name.prefix(64))'; scenes are \(Self.sceneNames.joined(separator: ", "))"))
      return out
    }
    let sceneChanged = next.scene != hello.scene
    // New shape settings apply at once (a drawing under way is dropped); a hello that only
    // moves the surface keeps the drawing.
    let shapesChanged = next.config != hello.config
    hello = next
    maxFingers = Self.maxFingers(next, server: serverMaxFingers)
    if sceneChanged {
      scene = ActiveScene(
        name: next.scene, device: next.device,
        regions: Self.regions(for: next, sceneName: next.scene))
      arena.ctx.log.recordsNotes = scene != nil
      out.scene = state
    }
    let regions = Self.regions(for: next, sceneName: scene?.name)
    arena.ctx.regions = RegionMap(regions: regions)
    if !sceneChanged, scene?.update(device: next.device, regions: regions) == true {
      out.scene = state
    }
    arena.update(
      settings: GestureSettings(
        config: next.config, defaultTapMaxCount: scene?.defaultTapMaxCount ?? 2))
    if shapesChanged {
      shapes = Self.shapeTracker(next.config, GestureSettings(config: next.config))
      hasShapes = shapes != nil
    }
    palms.update(config: next.config?.palm)
    palmBase = Self.palmStep(palms)
    palmStep = palmBase
    nextDeadline = earliestDeadline
    return out
  }

  /// Runs one frame. Timers due before `frame.t` fire first, with their own deadlines as
  /// times; a timer due exactly at `frame.t` waits for `advance`, after the frame.
  public mutating func process(_ frame: Frame) -> EngineOutput {
    var scratch = FrameScratch()
    return process(frame, scratch: &scratch)
  }

  /// The ids of `frame`'s entries that are palms (`config.palm`; gestures.md, "Palm
  /// rejection"), for a caller that marks them in the raw mirror before the engine runs:
  /// the next `process` must then be given this same frame. Empty for most frames.
  public mutating func markPalms(_ frame: Frame) -> [Int64] {
    guard palmBase != .off else { return [] }
    // Only a touch the source described can become a palm (a plain finger only beside a
    // pen, which is described), or a touch that already is one.
    let palmed = (palmBase == .every || Self.describes(frame.touches)) && classifyDescribed(frame)
    palmStep = palmed ? .markedPalm : .marked
    return palmed ? palms.marked : []
  }

  private static func palmStep(_ palms: PalmFilter) -> PalmStep {
    palms.isHolding ? .every : palms.isOn ? .scan : .off
  }

  /// Whether the frame `process` runs has a palm when it needs more than a scan: as
  /// `markPalms` found, or classified now (a palm is down).
  @inline(never) private mutating func palmsBeyondScan(_ frame: Frame) -> Bool {
    switch palmStep {
    case .off: return false
    case .marked, .markedPalm:
      let palmed = palmStep == .markedPalm
      palmStep = palmBase
      return palmed
    case .scan, .every: return classifyDescribed(frame)
    }
  }

  /// The frame as the fingers' frame: its palm entries left out, so that a finger which
  /// turned into a palm is missing, which cancels it (as Android cancels such a pointer).
  @inline(never) private mutating func applyWithoutPalms(_ frame: Frame, plan: inout FramePlan) -> [ProtocolError] {
    let fingers = Frame(seq: frame.seq, t: frame.t, touches: frame.touches.filter { !palms.marked.contains($0.id) })
    return arena.apply(fingers, maxFingers: maxFingers, plan: &plan)
  }

  /// Whether any touch carries details. Through the buffer, so each touch's tag is read in
  /// place: iterating the array copied every touch point whole.
  @inline(__always) private static func describes(_ touches: [TouchPoint]) -> Bool {
    touches.withUnsafeBufferPointer { b in
      for i in b.indices where b[i].details != nil { return true }
      return false
    }
  }

  @inline(never) private mutating func classifyDescribed(_ frame: Frame) -> Bool {
    let palmed = palms.classify(frame)
    palmBase = Self.palmStep(palms)
    palmStep = palmBase
    return palmed
  }

  /// `process(_:)` with list buffers lent by the caller (see `FrameScratch`), for a caller
  /// that runs many engines: the output is the same.
  public mutating func process(_ frame: Frame, scratch: inout FrameScratch) -> EngineOutput {
    // The stored deadline is the arena's (every call leaves it so), and it sits in the
    // engine's first line: most frames find no timer due without reading the recognizers'
    // state, which with many sources is cold.
    assert(nextDeadline == earliestDeadline)
    if let d = nextDeadline, d < frame.t {
      arena.fireTimers(until: frame.t, inclusive: false)
      if hasShapes { fireShapes(until: frame.t, inclusive: false) }
    }
    // Palms are no fingers: a frame with one is applied without it (most have none).
    let palmed: Bool
    if palmStep == .scan {
      palmed = Self.describes(frame.touches) && classifyDescribed(frame)
    } else if palmStep == .off {
      palmed = false
    } else {
      palmed = palmsBeyondScan(frame)
    }
    let errors: [ProtocolError]
    if palmed {
      errors = applyWithoutPalms(frame, plan: &scratch.plan)
    } else {
      errors = arena.apply(frame, maxFingers: maxFingers, plan: &scratch.plan)
    }
    if hasShapes { applyShapes(frame, palmed: palmed) }
    // Into the output as it is made: set afterwards, the empty list it replaced was destroyed
    // through its type's generic witness on every frame.
    return drain(errors: errors)
  }

  /// Fires the timers due at or before `t`; each event's `t` is its timer's deadline.
  public mutating func advance(to t: Double) -> EngineOutput {
    arena.fireTimers(until: t, inclusive: true)
    if hasShapes { fireShapes(until: t, inclusive: true) }
    return drain()
  }

  /// The connection is closing: every active gesture is `cancelled`. Fingers still down never
  /// become taps; a tap sequence that already completed and only waited for a next tap is
  /// reported, since it happened.
  public mutating func cancelAll(at t: Double) -> EngineOutput {
    arena.cancelAll(at: t)
    if hasShapes { shapes!.cancelAll(at: t) }
    return drain()
  }

  /// A scene control: `recognizeAny` (flatcube), action `reset` (flatcube, zoom), `clear` and
  /// `delete` (sketch).
  public mutating func control(_ c: Control) -> Result<EngineOutput, ProtocolError> {
    guard scene != nil else {
      return .failure(ProtocolError(.unknownScene, "this source runs no scene"))
    }
    return scene!.control(c).map { changed in EngineOutput(scene: changed ? state : nil) }
  }

  /// Takes the events and scene changes of a call, and notes the next deadline it left.
  private mutating func drain(errors: [ProtocolError] = []) -> EngineOutput {
    nextDeadline = arena.nextDeadline
    var out = EngineOutput(events: arena.ctx.log.takeEvents(), errors: errors)
    // The log's flag says whether there is a scene (it is set with `scene`): testing `scene`
    // itself read its tag from the engine's last cache line, cold on most frames.
    if arena.ctx.log.recordsNotes {
      let notes = arena.ctx.log.drainNotes()
      if !notes.isEmpty, scene!.consume(notes, deferredTaps: arena.ctx.settings.deferredTaps) {
        out.scene = state
      }
    }
    if hasShapes { drainShapes(into: &out) }
    return out
  }

  // The shape paths out of line, so the frame path of a source without shapes carries only
  // the flag tests (engine-instructions counted no difference either way).
  @inline(never) private mutating func applyShapes(_ frame: Frame, palmed: Bool) {
    shapes!.apply(frame, palms: palmed ? palms.marked : [])
  }

  @inline(never) private mutating func fireShapes(until t: Double, inclusive: Bool) {
    shapes!.fire(until: t, inclusive: inclusive)
  }

  /// The arena's deadline or the drawing's, whichever is first.
  private var earliestDeadline: Double? {
    guard hasShapes, let d = shapes!.deadline else { return arena.nextDeadline }
    return arena.nextDeadline.map { min($0, d) } ?? d
  }

  /// The shapes judged in this call, numbered with the other gestures and hit-tested.
  @inline(never) private mutating func drainShapes(into out: inout EngineOutput) {
    nextDeadline = earliestDeadline
    out.shapes = shapes!.takeFound()
    for i in out.shapes.indices {
      out.shapes[i].id = arena.ctx.log.nextID()
      let s = out.shapes[i]
      out.shapes[i].regions = arena.ctx.regions.hit(s.x, s.y)
    }
  }
}

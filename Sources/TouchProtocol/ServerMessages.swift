/// The wire protocol's name, also the WebSocket subprotocol.
public let protocolName = "touchrelay.v1"

/// A source as observers see it.
public struct SourceInfo: Sendable, Equatable {
  public var id: String
  public var device: Device
  public var scene: String?
  public init(id: String, device: Device, scene: String? = nil) {
    self.id = id
    self.device = device
    self.scene = scene
  }
}

/// Where a message came from: the frame (or timer) of a source, and when the server got it.
public struct Origin: Sendable, Equatable {
  public var source: String
  public var seq: Int64
  /// Device time (ms).
  public var t: Double
  /// Server receive time (server monotonic ms).
  public var rt: Double
  /// `"source":…` as `ServerMessage.sourceMember(source)` writes it, when the caller keeps
  /// that text (the server, per source): copied into each message instead of written again.
  public var sourceMember: [UInt8]?

  public init(source: String, seq: Int64, t: Double, rt: Double, sourceMember: [UInt8]? = nil) {
    self.source = source
    self.seq = seq
    self.t = t
    self.rt = rt
    self.sourceMember = sourceMember
  }

  /// The same origin, whether or not either keeps its source's text.
  public static func == (a: Origin, b: Origin) -> Bool {
    a.source == b.source && a.seq == b.seq && a.t == b.t && a.rt == b.rt
  }
}

/// Encoders for every server -> client message. Each returns the JSON bytes preceded by
/// `headroom` spare bytes, ready for the transport to frame in place.
public enum ServerMessage {
  public static func error(_ e: ProtocolError, headroom: Int = 0) -> [UInt8] {
    var w = JSONWriter(headroom: headroom)
    w.beginObject()
    w.key("type")
    w.string(literal: "error")
    w.key("code")
    w.string(e.code.rawValue)
    w.key("message")
    w.string(e.message)
    if let seq = e.seq {
      w.key("seq")
      w.int(seq)
    }
    w.endObject()
    return w.bytes
  }

  public static func sourceWelcome(
    session: String, source: String, resumed: Bool, limits: Limits, serverTime: Double,
    headroom: Int = 0
  ) -> [UInt8] {
    var w = JSONWriter(headroom: headroom)
    w.beginObject()
    w.key("type")
    w.string(literal: "welcome")
    w.key("protocol")
    w.string(protocolName)
    w.key("role")
    w.string(literal: "source")
    w.key("session")
    w.string(session)
    w.key("source")
    w.string(source)
    w.key("resumed")
    w.bool(resumed)
    w.key("serverTime")
    w.number(serverTime)
    w.key("limits")
    write(limits, &w)
    w.endObject()
    return w.bytes
  }

  public static func observerWelcome(
    session: String, sources: [SourceInfo], scenes: [(source: String, state: JSONValue)],
    limits: Limits, serverTime: Double, headroom: Int = 0, cluster: ClusterWelcome? = nil
  ) -> [UInt8] {
    var w = JSONWriter(headroom: headroom)
    w.beginObject()
    w.key("type")
    w.string(literal: "welcome")
    w.key("protocol")
    w.string(protocolName)
    w.key("role")
    w.string(literal: "observer")
    w.key("session")
    w.string(session)
    w.key("serverTime")
    w.number(serverTime)
    w.key("limits")
    write(limits, &w)
    w.key("sources")
    w.beginArray()
    for s in sources { write(s, &w) }
    for s in cluster?.sources ?? [] { write(s, &w) }
    w.endArray()
    w.key("scenes")
    w.beginArray()
    for s in scenes {
      w.beginObject()
      w.key("source")
      w.string(s.source)
      w.key("state")
      w.value(s.state)
      w.endObject()
    }
    for s in cluster?.scenes ?? [] {
      w.beginObject()
      w.key("source")
      w.string(s.source)
      w.key("state")
      s.state.withUnsafeBytes { w.json($0) }
      w.endObject()
    }
    w.endArray()
    if let cluster {
      w.key("cluster")
      w.beginObject()
      writeClusterMembers(node: cluster.node, busUp: cluster.busUp, &w)
      w.endObject()
    }
    w.endObject()
    return w.bytes
  }

  /// `"node":...,"bus":"up"|"down"`: a cluster node's name and its bus, in a welcome and in
  /// `/healthz`.
  public static func writeClusterMembers(node: String, busUp: Bool, _ w: inout JSONWriter) {
    w.key("node")
    w.string(node)
    w.key("bus")
    w.string(busUp ? "up" : "down")
  }

  /// A source's `SourceInfo` as the JSON object the observer `welcome` lists it with.
  public static func sourceInfoJSON(_ info: SourceInfo) -> [UInt8] {
    var w = JSONWriter()
    write(info, &w)
    return w.bytes
  }

  /// What a cluster node adds to an observer's `welcome`: the sources of other nodes and their
  /// scenes, as those nodes encoded them, and whether the bus is up (when it is down, the
  /// lists hold what the node knew when it went down).
  public struct ClusterWelcome {
    public var node: String
    public var busUp: Bool
    public var sources: [SourceInfo]
    /// Scene states (JSON) by source id.
    public var scenes: [(source: String, state: [UInt8])]
    public init(node: String, busUp: Bool, sources: [SourceInfo], scenes: [(source: String, state: [UInt8])]) {
      self.node = node
      self.busUp = busUp
      self.sources = sources
      self.scenes = scenes
    }
  }

  /// `event` is `joined`, `left`, `rejoined` or `updated` (a new hello).
  public static func sourceEvent(_ event: String, _ info: SourceInfo, headroom: Int = 0) -> [UInt8] {
    var w = JSONWriter(headroom: headroom)
    w.beginObject()
    w.key("type")
    w.string(literal: "source")
    w.key("event")
    w.string(event)
    w.key("source")
    w.string(info.id)
    w.key("device")
    write(info.device, &w)
    if let scene = info.scene {
      w.key("scene")
      w.string(scene)
    }
    w.endObject()
    return w.bytes
  }

  public static func touches(_ frame: Frame, origin: Origin, headroom: Int = 0) -> [UInt8] {
    touchesJSON(frame, origin: origin, headroom: headroom).bytes
  }

  /// `touches` as its writer, for a caller that takes the buffer over (`takeBuffer`) rather
  /// than copy it into an array.
  /// `text`: the parts of the source's message that are what this would write for `frame`
  /// (`MessageDecoder.compactFrame` says which), copied instead of written again; `origin`
  /// must then carry the frame's `seq` and `t`.
  public static func touchesJSON(
    _ frame: Frame, origin: Origin, headroom: Int = 0, text: FrameText = FrameText()
  ) -> JSONWriter {
    var w = JSONWriter(headroom: headroom, capacity: touchesCapacity(frame, text: text))
    write(frame, origin: origin, text: text, &w)
    return w
  }

  /// About what `touches` needs, so a new writer need not grow.
  public static func touchesCapacity(_ frame: Frame, text: FrameText = FrameText()) -> Int {
    96 + (text.touches?.count ?? 64 * frame.touches.count)
  }

  /// `touches` into `w` (see `touchesJSON`): the server, once per frame, into a buffer it
  /// reuses. Answers where the origin's members (`"source":…,"rt":…`) are in `w`, for the
  /// frame's gesture messages to copy (`write(_: GestureEvent, origin:originText:_:)`).
  /// `palms`: ids of the frame's palm entries (gestures.md, "Palm rejection"), each written
  /// with `"palm":true`; the source's text of the array is then not copied.
  @discardableResult
  public static func write(
    _ frame: Frame, origin: Origin, text: FrameText = FrameText(), palms: [Int64] = [], _ w: inout JSONWriter
  ) -> Range<Int> {
    w.beginObject()
    w.key("type")
    w.string(literal: "touches")
    // The origin starts after the comma that follows `type`.
    let originStart = w.writtenCount + 1
    write(origin, &w, head: text.head)
    let originEnd = w.writtenCount
    w.key("touches")
    if !palms.isEmpty {
      write(frame.touches, markingPalms: palms, &w)
    } else if let touches = text.touches {
      w.json(touches)
    } else {
      write(frame.touches, &w)
    }
    w.endObject()
    return originStart..<originEnd
  }

  /// A `touches` array as both a client's `frame` and the server's mirror carry it.
  public static func write(_ touches: [TouchPoint], _ w: inout JSONWriter) {
    w.beginArray()
    for p in touches {
      w.beginObject()
      writeMembers(p, &w)
      w.endObject()
    }
    w.endArray()
  }

  /// One touch entry's members, as the source may send them, without its braces.
  @inline(__always) static func writeMembers(_ p: TouchPoint, _ w: inout JSONWriter) {
    w.key("id")
    w.int(p.id)
    w.key("phase")
    w.string(literal: p.phase.wireName)
    w.key("x")
    w.number(p.x)
    w.key("y")
    w.number(p.y)
    w.number("force", ifPresent: p.force)
    w.number("radiusX", ifPresent: p.radiusX)
    w.number("radiusY", ifPresent: p.radiusY)
    if let d = p.details { write(d, &w) }
  }

  /// A touch's contact details, in the order `CompactFrameReader` takes for the writer's.
  private static func write(_ d: ContactDetails, _ w: inout JSONWriter) {
    if let k = d.kind {
      w.key("kind")
      w.string(literal: k.wireName)
    }
    w.number("pressure", ifPresent: d.pressure)
    w.number("radius", ifPresent: d.radius)
    w.number("altitude", ifPresent: d.altitude)
    w.number("azimuth", ifPresent: d.azimuth)
    if let h = d.hover {
      w.key("hover")
      w.bool(h)
    }
  }

  public static func gesture(_ e: GestureEvent, origin: Origin, headroom: Int = 0) -> [UInt8] {
    var w = JSONWriter(headroom: headroom, capacity: gestureCapacity)
    write(e, origin: origin, &w)
    return w.bytes
  }

  /// About what a `gesture` message needs.
  public static var gestureCapacity: Int { 512 }

  /// The most the members every gesture has can take: names and punctuation (80 bytes), the
  /// gesture's and state's names (16 each at most), two integers and two numbers.
  static var gestureHeadBytes: Int { 112 + 2 * JSONCursor.maxIntBytes + 2 * JSONCursor.maxNumberBytes }

  /// `gesture` into `w` (see `write(_: Frame, …)`). `originText`: `origin`'s members as a
  /// `touches` message of the same origin has them (what `write(_: Frame, …)` answers), copied
  /// instead of written again.
  public static func write(
    _ e: GestureEvent, origin: Origin, originText: UnsafeRawBufferPointer? = nil, _ w: inout JSONWriter
  ) {
    w.beginObject()
    w.key("type")
    w.string(literal: "gesture")
    if let originText { w.members(originText) } else { write(origin, &w) }
    // The members every gesture has, then the numbers some have, each run written through one
    // reservation: token by token, each name and comma cost a capacity check and the comma
    // state's upkeep, most of the message's cost.
    w.members(reserving: Self.gestureHeadBytes) { c in
      c.text(#","id":"#)
      c.int(Int64(e.id))
      c.text(#","gesture":""#)
      c.text(e.gesture.wireName)
      c.text(#"","state":""#)
      c.text(e.state.wireName)
      c.text(#"","touches":"#)
      c.int(Int64(e.touches))
      c.text(#","x":"#)
      c.number(e.x)
      c.text(#","y":"#)
      c.number(e.y)
      if e.regions.isEmpty { c.text(#","regions":[]"#) }
    }
    if !e.regions.isEmpty {
      w.key("regions")
      w.beginArray()
      for r in e.regions { w.string(r) }
      w.endArray()
    }
    let vectors = (e.translation == nil ? 0 : 1) + (e.velocity == nil ? 0 : 1)
    let scalars = (e.scale == nil ? 0 : 1) + (e.rotation == nil ? 0 : 1) + (e.rate == nil ? 0 : 1)
    if e.taps != nil || vectors + scalars > 0 {
      // Names and punctuation: `taps` and its integer 32 bytes, a vector's 26, a scalar's 12.
      let bytes = 32 + vectors * (32 + 2 * JSONCursor.maxNumberBytes) + scalars * (16 + JSONCursor.maxNumberBytes)
      w.members(reserving: bytes) { c in
        if let taps = e.taps {
          c.text(#","taps":"#)
          c.int(Int64(taps))
        }
        if let v = e.translation { write(v, after: #","translation":"#, &c) }
        if let v = e.velocity { write(v, after: #","velocity":"#, &c) }
        if let s = e.scale {
          c.text(#","scale":"#)
          c.number(s)
        }
        if let r = e.rotation {
          c.text(#","rotation":"#)
          c.number(r)
        }
        if let r = e.rate {
          // Scalar velocity of pinch (scale/s) and rotation (rad/s), as UIKit names it.
          c.text(#","velocity":"#)
          c.number(r)
        }
      }
    }
    if let d = e.direction {
      w.key("direction")
      w.string(d.rawValue)
    }
    if let fingers = e.fingers, fingers.allSatisfy({ $0.regions.isEmpty }) {
      // Fingers over no region (the usual case) are all numbers: one reservation for them all.
      let each = 32 + JSONCursor.maxIntBytes + 2 * JSONCursor.maxNumberBytes
      w.members(reserving: 16 + fingers.count * each) { c in
        c.text(#","fingers":["#)
        for (i, f) in fingers.enumerated() {
          if i > 0 { c.text(",") }
          c.text(#"{"id":"#)
          c.int(f.id)
          c.text(#","x":"#)
          c.number(f.x)
          c.text(#","y":"#)
          c.number(f.y)
          c.text(#","regions":[]}"#)
        }
        c.text("]")
      }
    } else if let fingers = e.fingers {
      w.key("fingers")
      w.beginArray()
      for f in fingers {
        w.beginObject()
        w.key("id")
        w.int(f.id)
        w.key("x")
        w.number(f.x)
        w.key("y")
        w.number(f.y)
        w.key("regions")
        w.beginArray()
        for r in f.regions { w.string(r) }
        w.endArray()
        w.endObject()
      }
      w.endArray()
    }
    w.endObject()
  }

  /// `name` (with its comma, quotes and colon), then `{"x":…,"y":…}`, through a cursor.
  private static func write(_ v: Vector, after name: StaticString, _ c: inout JSONCursor) {
    c.text(name)
    c.text(#"{"x":"#)
    c.number(v.x)
    c.text(#","y":"#)
    c.number(v.y)
    c.text("}")
  }

  /// A scene's state; `origin` is nil for a snapshot not caused by a frame.
  public static func scene(source: String, state: JSONValue, origin: Origin?, headroom: Int = 0) -> [UInt8] {
    var w = JSONWriter(headroom: headroom)
    w.beginObject()
    w.key("type")
    w.string(literal: "scene")
    if let origin {
      write(origin, &w)
    } else {
      w.key("source")
      w.string(source)
    }
    w.key("state")
    w.value(state)
    w.endObject()
    return w.bytes
  }

  /// A scene's state alone, as JSON (what a cluster node passes on for welcomes and snapshots).
  public static func sceneState(_ state: JSONValue) -> [UInt8] {
    var w = JSONWriter()
    w.value(state)
    return w.bytes
  }

  /// A scene message around a state that is JSON already (another node's, checked).
  public static func scene(source: String, stateJSON: [UInt8], origin: Origin, headroom: Int = 0) -> [UInt8] {
    var w = JSONWriter(headroom: headroom)
    w.beginObject()
    w.key("type")
    w.string(literal: "scene")
    write(origin, &w)
    w.key("state")
    stateJSON.withUnsafeBytes { w.json($0) }
    w.endObject()
    return w.bytes
  }

  public static func dropped(count: Int, headroom: Int = 0) -> [UInt8] {
    var w = JSONWriter(headroom: headroom)
    w.beginObject()
    w.key("type")
    w.string(literal: "dropped")
    w.key("count")
    w.int(Int64(count))
    w.endObject()
    return w.bytes
  }

  /// `"source":…` for messages `source` causes (`Origin.sourceMember`).
  public static func sourceMember(_ source: String) -> [UInt8] {
    var w = JSONWriter()
    w.key("source")
    w.string(source)
    return w.bytes
  }

  /// `head`: `"seq":…,"t":…` as this would write them, copied instead (see `FrameText`).
  static func write(_ origin: Origin, _ w: inout JSONWriter, head: UnsafeRawBufferPointer? = nil) {
    if let member = origin.sourceMember {
      member.withUnsafeBytes { w.members($0) }
    } else {
      w.key("source")
      w.string(origin.source)
    }
    if let head { w.members(head) } else { writeHead(seq: origin.seq, t: origin.t, &w) }
    w.key("rt")
    w.number(origin.rt)
  }

  /// `"seq":…,"t":…`, as every message of an origin has them.
  private static func writeHead(seq: Int64, t: Double, _ w: inout JSONWriter) {
    w.key("seq")
    w.int(seq)
    w.key("t")
    w.number(t)
  }

  /// `"seq":…,"t":…` alone, as the server writes them: what `FrameText.head` must equal.
  @_spi(Testing) public static func head(seq: Int64, t: Double) -> [UInt8] {
    var w = JSONWriter()
    // Inside an object, so the two members are separated; its brace is left out.
    w.beginObject()
    writeHead(seq: seq, t: t, &w)
    return Array(w.bytes.dropFirst())
  }

  static func write(_ d: Device, _ w: inout JSONWriter) {
    w.beginObject()
    w.key("name")
    w.string(d.name)
    w.key("width")
    w.number(d.width)
    w.key("height")
    w.number(d.height)
    w.endObject()
  }

  static func write(_ s: SourceInfo, _ w: inout JSONWriter) {
    w.beginObject()
    w.key("id")
    w.string(s.id)
    w.key("device")
    write(s.device, &w)
    if let scene = s.scene {
      w.key("scene")
      w.string(scene)
    }
    w.endObject()
  }

  public static func write(_ l: Limits, _ w: inout JSONWriter) {
    w.beginObject()
    w.key("maxMessageBytes")
    w.int(Int64(l.maxMessageBytes))
    w.key("maxTouchesPerFrame")
    w.int(Int64(l.maxTouchesPerFrame))
    w.key("maxFingers")
    w.int(Int64(l.maxFingers))
    w.key("observerQueue")
    w.int(Int64(l.observerQueue))
    w.key("maxDepth")
    w.int(Int64(l.maxDepth))
    w.key("maxFramesPerSecond")
    w.int(Int64(l.maxFramesPerSecond))
    w.key("maxFramesPerMessage")
    w.int(Int64(l.maxFramesPerMessage))
    w.key("maxControlsPerSecond")
    w.int(Int64(l.maxControlsPerSecond))
    w.key("maxConnections")
    w.int(Int64(l.maxConnections))
    w.key("maxConnectionsPerAddress")
    w.int(Int64(l.maxConnectionsPerAddress))
    w.key("maxSessions")
    w.int(Int64(l.maxSessions))
    w.key("maxObserversPerSession")
    w.int(Int64(l.maxObserversPerSession))
    w.endObject()
  }
}

/// Decodes one client text message. `frame` and `frames` in the compact shape every client
/// writes go through `CompactFrameReader`; any other `frame` or `frames` through the
/// purpose-built scanner (no allocation beyond each sample's touches array and, for `frames`,
/// the list of samples);
/// the rare `hello` and `control` use Foundation's JSONDecoder after the scanner has validated
/// the syntax.
public struct MessageDecoder: Sendable {
  public var limits: Limits

  public init(limits: Limits = Limits()) {
    self.limits = limits
  }

  public func decode(_ bytes: [UInt8]) -> Result<ClientMessage, ProtocolError> {
    bytes.withUnsafeBytes { decode($0) }
  }

  public func decode(_ text: String) -> Result<ClientMessage, ProtocolError> {
    var text = text
    return text.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
  }

  public func decode(_ bytes: UnsafeRawBufferPointer) -> Result<ClientMessage, ProtocolError> {
    if let message = CompactFrameReader.read(bytes, limits: limits) { return .success(message) }
    return decodeInFull(bytes)
  }

  /// The message as a frame, if it is a `frame` in the compact shape every client writes
  /// (`CompactFrameReader`); nil means only that `decode` must read it. The server's hot path:
  /// no `Result` or `ClientMessage` to build and destroy around the frame, and the touch array
  /// of `frame` (one the caller keeps for every message) is refilled in its own storage. The
  /// answer says which parts of `bytes` are exactly what the server writes for them, so its
  /// `touches` message can copy them (`ServerMessage.touchesJSON`). On nil, `frame` holds
  /// nothing meaningful.
  public func compactFrame(_ bytes: UnsafeRawBufferPointer, into frame: inout Frame) -> FrameText? {
    CompactFrameReader.frame(bytes, limits: limits, into: &frame)
  }

  /// `compactFrame(_:into:)` into a new frame.
  public func compactFrame(_ bytes: UnsafeRawBufferPointer) -> (frame: Frame, text: FrameText)? {
    var frame = Frame(seq: 0, t: 0, touches: [])
    guard let text = compactFrame(bytes, into: &frame) else { return nil }
    return (frame, text)
  }

  /// The message read token by token, without the compact reader's fast path: what `decode`
  /// answers whenever the compact reader gives up, and the reference it must agree with.
  @_spi(Testing) public func decodeInFull(_ bytes: UnsafeRawBufferPointer) -> Result<ClientMessage, ProtocolError> {
    var scanner = JSONScanner(bytes, maxDepth: limits.maxDepth)
    var fields = FrameFields()
    do {
      guard scanner.peekKind() == .object else {
        return .failure(ProtocolError(.badJSON, "a message must be a JSON object"))
      }
      try scanner.readObject(depth: 1) { (s: inout JSONScanner, key) throws(JSONScanner.Failure) in
        try fields.read(key: key, from: &s, limits: limits)
      }
      try scanner.expectEnd()
    } catch {
      switch error {
      case .syntax(let why): return .failure(ProtocolError(.badJSON, "not valid JSON: \(why)"))
      case .nonFinite(let word):
        return .failure(ProtocolError(.nonFinite, "numbers must be finite; got \(word)", seq: fields.seq))
      case .tooDeep:
        return .failure(ProtocolError(.badJSON, "JSON nested deeper than \(limits.maxDepth) levels"))
      }
    }
    if fields.typeIsNotAString {
      return .failure(ProtocolError(.wrongType, "'type' must be a string"))
    }
    guard let type = fields.type else {
      return .failure(ProtocolError(.missingField, "missing field 'type'"))
    }
    if type != "frames", let word = fields.samples?.nonFinite {
      // Read leniently in case the type was `frames`; anywhere else it refuses the message.
      return .failure(ProtocolError(.nonFinite, "numbers must be finite; got \(word)", seq: fields.seq))
    }
    switch type {
    case "frame": return fields.frame().map(ClientMessage.frame)
    case "frames": return fields.frames(limits: limits).map(ClientMessage.frames)
    case "hello": return SlowPathDecoder.hello(bytes).map(ClientMessage.hello)
    case "control": return SlowPathDecoder.control(bytes).map(ClientMessage.control)
    default:
      return .failure(ProtocolError(.unknownType, "unknown message type '\(type.prefix(64))'"))
    }
  }
}

/// The fields of a would-be frame, read in one pass whatever the key order. Errors that only
/// matter if the message is a frame are kept until the type is known. A sample of a `frames`
/// message is read with the same fields, `nesting` levels deeper (2: inside the array).
private struct FrameFields {
  var type: String?
  var seq: Int64?
  var t: Double?
  var touches: [TouchPoint]?
  var deferred: ProtocolError?
  var touchCount = 0
  var typeIsNotAString = false
  /// The `frames` member, read as samples whatever the type turns out to be.
  var samples: SampleList?
  let nesting: Int

  init(nesting: Int = 0) {
    self.nesting = nesting
  }

  mutating func defer_(_ e: ProtocolError) {
    if deferred == nil { deferred = e }
  }

  mutating func read(key: JSONScanner.RawString, from s: inout JSONScanner, limits: Limits)
    throws(JSONScanner.Failure)
  {
    if s.equals(key, "type"), nesting == 0 {
      guard s.peekKind() == .string else {
        try s.skipValue(depth: 1)
        typeIsNotAString = true
        return
      }
      type = s.string(try s.readString())
    } else if s.equals(key, "seq") {
      guard let v = try number(&s, "seq") else { return }
      guard v >= 0, v <= 9_007_199_254_740_991, v.rounded() == v else {
        return defer_(ProtocolError(.badValue, "'seq' must be a whole number from 0 to 2^53-1"))
      }
      seq = Int64(v)
    } else if s.equals(key, "t") {
      t = try number(&s, "t")
    } else if s.equals(key, "touches") {
      guard s.peekKind() == .array else {
        try s.skipValue(depth: 1 + nesting)
        return defer_(ProtocolError(.wrongType, "'touches' must be an array"))
      }
      var list: [TouchPoint] = []
      list.reserveCapacity(4)
      try s.readArray(depth: 2 + nesting) { (s: inout JSONScanner, i) throws(JSONScanner.Failure) in
        touchCount += 1
        guard touchCount <= limits.maxTouchesPerFrame else {
          try s.skipValue(depth: 2 + nesting)
          return
        }
        if let p = try touch(&s, i) { list.append(p) }
      }
      if touchCount > limits.maxTouchesPerFrame {
        // The count is the clearest complaint about an oversized array, whatever is inside.
        deferred = nil
        defer_(
          ProtocolError(
            .tooManyTouches, "a frame may list at most \(limits.maxTouchesPerFrame) touches; got \(touchCount)"
          ))
      }
      touches = list
    } else if s.equals(key, "frames"), nesting == 0 {
      samples = try SampleList.read(&s, limits: limits)
    } else {
      try s.skipValue(depth: 1 + nesting)
    }
  }

  /// A number field, or nil (with a deferred error) when it has another type.
  mutating func number(_ s: inout JSONScanner, _ name: @autoclosure () -> String) throws(JSONScanner.Failure)
    -> Double?
  {
    switch s.peekKind() {
    case .number: return try s.readNumber()
    case .nonFinite:
      try s.skipNonFinite()
      return nil
    default:
      try s.skipValue(depth: 1 + nesting)
      defer_(ProtocolError(.wrongType, "'\(name())' must be a number"))
      return nil
    }
  }

  mutating func touch(_ s: inout JSONScanner, _ i: Int) throws(JSONScanner.Failure) -> TouchPoint? {
    guard s.peekKind() == .object else {
      try s.skipValue(depth: 2 + nesting)
      defer_(ProtocolError(.wrongType, "touches[\(i)] must be an object"))
      return nil
    }
    var id: Double?
    var phase: TouchPhase?
    var x: Double?
    var y: Double?
    var force: Double?
    var rx: Double?
    var ry: Double?
    var kind: TouchKind?
    var pressure: Double?
    var radius: Double?
    var altitude: Double?
    var azimuth: Double?
    var hover: Bool?
    var bad = false
    try s.readObject(depth: 3 + nesting) { (s: inout JSONScanner, key) throws(JSONScanner.Failure) in
      if s.equals(key, "id") {
        id = try number(&s, "touches[\(i)].id")
      } else if s.equals(key, "phase") {
        guard s.peekKind() == .string else {
          try s.skipValue(depth: 3 + nesting)
          defer_(ProtocolError(.wrongType, "touches[\(i)].phase must be a string"))
          bad = true
          return
        }
        let raw = try s.readString()
        phase = Self.phase(s, raw)
        if phase == nil {
          defer_(
            ProtocolError(
              .unknownPhase,
              "touches[\(i)].phase '\(s.string(raw).prefix(32))' is not one of began, moved, stationary, ended, cancelled"
            ))
          bad = true
        }
      } else if s.equals(key, "x") {
        x = try number(&s, "touches[\(i)].x")
      } else if s.equals(key, "y") {
        y = try number(&s, "touches[\(i)].y")
      } else if s.equals(key, "force") {
        force = try optionalNumber(&s, "touches[\(i)].force")
      } else if s.equals(key, "radiusX") {
        rx = try optionalNumber(&s, "touches[\(i)].radiusX")
      } else if s.equals(key, "radiusY") {
        ry = try optionalNumber(&s, "touches[\(i)].radiusY")
      } else if s.equals(key, "kind") {
        switch s.peekKind() {
        case .null: _ = try s.readBoolOrNull()
        case .string:
          let raw = try s.readString()
          kind = Self.kind(s, raw)
          if kind == nil {
            defer_(
              ProtocolError(
                .badValue, "touches[\(i)].kind '\(s.string(raw).prefix(32))' is not one of finger, pen, eraser, mouse"))
            bad = true
          }
        default:
          try s.skipValue(depth: 3 + nesting)
          defer_(ProtocolError(.wrongType, "touches[\(i)].kind must be a string"))
          bad = true
        }
      } else if s.equals(key, "pressure") {
        pressure = try optionalNumber(&s, "touches[\(i)].pressure")
      } else if s.equals(key, "radius") {
        radius = try optionalNumber(&s, "touches[\(i)].radius")
      } else if s.equals(key, "altitude") {
        altitude = try optionalNumber(&s, "touches[\(i)].altitude")
      } else if s.equals(key, "azimuth") {
        azimuth = try optionalNumber(&s, "touches[\(i)].azimuth")
      } else if s.equals(key, "hover") {
        switch s.peekKind() {
        case .bool, .null: hover = try s.readBoolOrNull()
        default:
          try s.skipValue(depth: 3 + nesting)
          defer_(ProtocolError(.wrongType, "touches[\(i)].hover must be true or false"))
          bad = true
        }
      } else {
        try s.skipValue(depth: 3 + nesting)
      }
    }
    if bad { return nil }
    guard let id else { return missing("touches[\(i)].id") }
    guard let phase else { return missing("touches[\(i)].phase") }
    guard let x else { return missing("touches[\(i)].x") }
    guard let y else { return missing("touches[\(i)].y") }
    guard id.rounded() == id, abs(id) <= 9_007_199_254_740_991 else {
      defer_(ProtocolError(.badValue, "touches[\(i)].id must be a whole number"))
      return nil
    }
    if let v = pressure, !ContactDetails.pressureIsValid(v) {
      return outOfRange("touches[\(i)].pressure must be from 0 to 1")
    }
    if let v = radius, !ContactDetails.radiusIsValid(v) { return outOfRange("touches[\(i)].radius must be 0 or more") }
    if let v = altitude, !ContactDetails.altitudeIsValid(v) {
      return outOfRange("touches[\(i)].altitude must be from 0 to π/2 (radians)")
    }
    if let v = azimuth, !ContactDetails.azimuthIsValid(v) {
      return outOfRange("touches[\(i)].azimuth must be from 0 to 2π (radians)")
    }
    let details: ContactDetails? =
      kind == nil && pressure == nil && radius == nil && altitude == nil && azimuth == nil && hover == nil
      ? nil
      : ContactDetails(
        kind: kind, pressure: pressure, radius: radius, altitude: altitude, azimuth: azimuth, hover: hover)
    return TouchPoint(id: Int64(id), phase: phase, x: x, y: y, force: force, radiusX: rx, radiusY: ry, details: details)
  }

  mutating func outOfRange(_ message: String) -> TouchPoint? {
    defer_(ProtocolError(.badValue, message))
    return nil
  }

  mutating func optionalNumber(_ s: inout JSONScanner, _ name: @autoclosure () -> String)
    throws(JSONScanner.Failure) -> Double?
  {
    if s.peekKind() == .null {
      _ = try s.readBoolOrNull()
      return nil
    }
    return try number(&s, name())
  }

  mutating func missing(_ name: String) -> TouchPoint? {
    defer_(ProtocolError(.missingField, "missing field '\(name)'"))
    return nil
  }

  static func kind(_ s: JSONScanner, _ raw: JSONScanner.RawString) -> TouchKind? {
    if s.equals(raw, "finger") { return .finger }
    if s.equals(raw, "pen") { return .pen }
    if s.equals(raw, "eraser") { return .eraser }
    if s.equals(raw, "mouse") { return .mouse }
    return nil
  }

  static func phase(_ s: JSONScanner, _ raw: JSONScanner.RawString) -> TouchPhase? {
    if s.equals(raw, "moved") { return .moved }
    if s.equals(raw, "stationary") { return .stationary }
    if s.equals(raw, "began") { return .began }
    if s.equals(raw, "ended") { return .ended }
    if s.equals(raw, "cancelled") { return .cancelled }
    return nil
  }

  /// The message as `frames`: its samples, unless the message itself is unreadable.
  func frames(limits: Limits) -> Result<[Result<Frame, ProtocolError>], ProtocolError> {
    guard let samples else { return .failure(ProtocolError(.missingField, "missing field 'frames'")) }
    guard samples.isArray else { return .failure(ProtocolError(.wrongType, "'frames' must be an array")) }
    guard samples.count <= limits.maxFramesPerMessage else {
      return .failure(
        ProtocolError(
          .tooManyFrames,
          "a frames message may carry at most \(limits.maxFramesPerMessage) frames; got \(samples.count)"
        ))
    }
    return .success(samples.list)
  }

  /// One sample of a `frames` message: an object read like a frame without its `type`.
  static func sample(_ s: inout JSONScanner, _ i: Int, limits: Limits) throws(JSONScanner.Failure) -> Result<
    Frame, ProtocolError
  > {
    var fields = FrameFields(nesting: 2)
    if s.peekKind() == .object {
      try s.readObject(depth: 3) { (s: inout JSONScanner, key) throws(JSONScanner.Failure) in
        try fields.read(key: key, from: &s, limits: limits)
      }
    } else {
      try s.skipValue(depth: 2)
      fields.defer_(ProtocolError(.wrongType, "must be an object"))
    }
    let result: Result<Frame, ProtocolError>
    if let word = s.nonFinite {
      result = .failure(ProtocolError(.nonFinite, "numbers must be finite; got \(word)", seq: fields.seq))
    } else {
      result = fields.frame()
    }
    return result.mapError { e in
      var e = e
      e.message = "frames[\(i)]: " + e.message
      return e
    }
  }

  func frame() -> Result<Frame, ProtocolError> {
    if var e = deferred {
      e.seq = e.seq ?? seq
      return .failure(e)
    }
    guard let seq else { return .failure(ProtocolError(.missingField, "missing field 'seq'")) }
    guard let t else { return .failure(ProtocolError(.missingField, "missing field 't'", seq: seq)) }
    guard let touches else {
      return .failure(ProtocolError(.missingField, "missing field 'touches'", seq: seq))
    }
    // Frames are small (the limit is 20 by default), so a quadratic check beats hashing.
    for i in touches.indices {
      for j in touches.index(after: i)..<touches.endIndex where touches[i].id == touches[j].id {
        return .failure(
          ProtocolError(.duplicateTouchID, "touch id \(touches[i].id) is listed twice", seq: seq))
      }
    }
    return .success(Frame(seq: seq, t: t, touches: touches))
  }
}

/// The `frames` member of a message as read: its samples, how many there were, and whether it
/// was an array at all.
private struct SampleList {
  var list: [Result<Frame, ProtocolError>] = []
  var count = 0
  var isArray = true
  /// A non-finite number in any sample (the whole message's fault unless it is `frames`).
  var nonFinite: String?

  static func read(_ s: inout JSONScanner, limits: Limits) throws(JSONScanner.Failure) -> SampleList {
    var samples = SampleList()
    guard s.peekKind() == .array else {
      try s.skipValue(depth: 1)
      samples.isArray = false
      return samples
    }
    // A non-finite number refuses the sample it stands in, not the message.
    s.noteNonFinite = true
    try s.readArray(depth: 2) { (s: inout JSONScanner, i) throws(JSONScanner.Failure) in
      samples.count += 1
      s.nonFinite = nil
      if samples.count > limits.maxFramesPerMessage {
        // Dropped whole (too_many_frames), but still read through as JSON.
        try s.skipValue(depth: 2)
      } else {
        if samples.list.isEmpty { samples.list.reserveCapacity(8) }
        samples.list.append(try FrameFields.sample(&s, i, limits: limits))
      }
      if samples.nonFinite == nil { samples.nonFinite = s.nonFinite }
    }
    s.noteNonFinite = false
    s.nonFinite = nil
    return samples
  }
}

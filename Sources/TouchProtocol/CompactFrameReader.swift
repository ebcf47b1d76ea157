/// The fast path for the messages a source sends 60 to 240 times a second: a `frame` or
/// `frames` written compactly (no whitespace between tokens, `type` first, as `JSON.stringify`
/// and every encoder in this project write them), with only the members the protocol defines,
/// each once, in any order. It reads such a message by matching its literal parts instead of
/// scanning it token by token, which was a large share of the server's work per frame
/// (PERFORMANCE.md has the figure).
///
/// Anything else (whitespace, an unknown or repeated member, an escaped name, `null` for an
/// optional member, a number off the scanner's exact path, a value the protocol refuses) makes
/// it give up, and the full decoder reads the message from the start and gives the answer or
/// the error. So it never decides anything itself: whatever it accepts, the full decoder reads
/// as the same message (`decodeInFull`; the tests and the decoder fuzz target check this).
struct CompactFrameReader {
  private var s: JSONScanner
  private let limits: Limits
  /// Where the frame's `touches` array is, when its text is exactly what `JSONWriter` would
  /// write for the values read (members in the writer's order, numbers in its form): the
  /// mirror then copies it instead of writing it again.
  private var canonicalTouches: Range<Int>?
  /// Where `"seq":…,"t":…` is, when both come in that order, next to each other, and their
  /// numbers are in the writer's form: the mirror copies that too.
  private var canonicalHead: Range<Int>?
  /// Whether the number just read is written by `JSONWriter.number` with the same text.
  private var numberIsCanonical = false

  /// The message, or nil if it is not a frame or frames in the compact shape.
  static func read(_ bytes: UnsafeRawBufferPointer, limits: Limits) -> ClientMessage? {
    guard var reader = CompactFrameReader(bytes, limits: limits) else { return nil }
    return reader.message()
  }

  /// Reads the message into `frame` if it is a `frame` in the compact shape, and says which
  /// parts of its text are what the server would write for them (see `canonicalTouches` and
  /// `canonicalHead`); nil, with `frame` left in no particular state, if it is not. The
  /// frame's touch array is emptied and refilled, so a caller that keeps one frame for every
  /// message reuses its storage.
  static func frame(_ bytes: UnsafeRawBufferPointer, limits: Limits, into frame: inout Frame) -> FrameText? {
    guard var reader = CompactFrameReader(bytes, limits: limits), reader.s.consume(#"{"type":"frame",""#) else {
      return nil
    }
    frame.touches.removeAllKeepingStorage()
    guard let (seq, t) = reader.members(into: &frame.touches), reader.s.atEnd else { return nil }
    frame.seq = seq
    frame.t = t
    return FrameText(
      head: reader.canonicalHead.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) },
      touches: reader.canonicalTouches.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) })
  }

  /// A reader at the start of `bytes`, or nil when the limits are the full decoder's to judge:
  /// a touch of a `frames` sample is five levels deep.
  private init?(_ bytes: UnsafeRawBufferPointer, limits: Limits) {
    guard limits.maxDepth >= 5 else { return nil }
    s = JSONScanner(bytes, maxDepth: limits.maxDepth)
    self.limits = limits
  }

  private mutating func message() -> ClientMessage? {
    guard s.consume(#"{"type":"frame"#) else { return nil }
    if s.consume(#"",""#) {
      var touches: [TouchPoint] = []
      guard let (seq, t) = members(into: &touches), s.atEnd else { return nil }
      return .frame(Frame(seq: seq, t: t, touches: touches))
    }
    guard s.consume(#"s","frames":["#) else { return nil }
    var samples: [Result<Frame, ProtocolError>] = []
    if !s.consume("]") {
      samples.reserveCapacity(8)
      repeat {
        var touches: [TouchPoint] = []
        guard samples.count < limits.maxFramesPerMessage, s.consume(#"{""#),
          let (seq, t) = members(into: &touches)
        else { return nil }
        samples.append(.success(Frame(seq: seq, t: t, touches: touches)))
      } while s.consume(",")
      guard s.consume("]") else { return nil }
    }
    guard s.consume("}"), s.atEnd else { return nil }
    return .frames(samples)
  }

  /// `seq`, `t` and `touches` (appended to `list`, which is empty), read from just after a
  /// member name's opening quote up to and including the object's closing brace.
  private mutating func members(into list: inout [TouchPoint]) -> (seq: Int64, t: Double)? {
    var seq: Int64?
    var t: Double?
    var hasTouches = false
    // Where `"seq":…` starts and ends if its number is the writer's; then `t`'s end, if it
    // follows at once and is the writer's too.
    var seqText: Range<Int>?
    var head: Range<Int>?
    repeat {
      let name = s.index - 1
      // Dispatched on the name's first byte, then matched whole.
      switch s.peek() {
      case UInt8(ascii: "s"):
        guard seq == nil, s.consume(#"seq":"#), let v = number(), v >= 0, v <= Self.largestExactInteger,
          Double(Int64(v)) == v
        else { return nil }
        seq = Int64(v)
        if numberIsCanonical { seqText = name..<s.index }
      case UInt8(ascii: "t"):
        if s.consume(#"t":"#) {
          guard t == nil, let v = number() else { return nil }
          t = v
          if numberIsCanonical, let seqText, seqText.upperBound + 1 == name { head = seqText.lowerBound..<s.index }
        } else {
          guard !hasTouches, s.consume(#"touches":["#) else { return nil }
          let open = s.index - 1
          guard let canonical = touchList(into: &list) else { return nil }
          hasTouches = true
          canonicalTouches = canonical ? open..<s.index : nil
        }
      default:
        return nil
      }
    } while s.consume(#",""#)
    guard s.consume("}"), let seq, let t, hasTouches else { return nil }
    canonicalHead = head
    return (seq, t)
  }

  /// The touches after the opening bracket, through the closing one, appended to `list`
  /// (empty): within the limit, ids distinct. Whether their text is the writer's.
  private mutating func touchList(into list: inout [TouchPoint]) -> Bool? {
    if s.consume("]") { return true }
    list.reserveCapacity(4)
    var canonical = true
    repeat {
      guard list.count < limits.maxTouchesPerFrame, s.consume(#"{""#), let (p, inOrder) = touch() else { return nil }
      for q in list where q.id == p.id { return nil }
      list.append(p)
      canonical = canonical && inOrder
    } while s.consume(",")
    guard s.consume("]") else { return nil }
    return canonical
  }

  /// One touch, from just after its first member name's opening quote, and whether its text
  /// is the writer's (`ServerMessage.write(_: [TouchPoint], _:)`: members in that order).
  private mutating func touch() -> (TouchPoint, canonical: Bool)? {
    var canonical = true
    var lastRank = -1
    /// The member of writer's rank `rank` was read, with a number unless `isNumber` is false.
    func member(_ rank: Int, isNumber: Bool = true) {
      canonical = canonical && rank > lastRank && (!isNumber || numberIsCanonical)
      lastRank = rank
    }
    var id: Int64?
    var phase: TouchPhase?
    var x: Double?
    var y: Double?
    var force: Double?
    var radiusX: Double?
    var radiusY: Double?
    // The contact details (ranks 7 to 12), held to their ranges: a value out of range is the
    // full decoder's to refuse.
    var kind: TouchKind?
    var pressure: Double?
    var radius: Double?
    var altitude: Double?
    var azimuth: Double?
    var hover: Bool?
    repeat {
      switch s.peek() {
      case UInt8(ascii: "i"):
        guard id == nil, s.consume(#"id":"#), let v = number(), v.magnitude <= Self.largestExactInteger,
          Double(Int64(v)) == v
        else { return nil }
        id = Int64(v)
        member(0)
      case UInt8(ascii: "p"):
        if s.consume(#"phase":""#) {
          guard phase == nil, let p = phaseWord() else { return nil }
          phase = p
          member(1, isNumber: false)
        } else {
          guard pressure == nil, s.consume(#"pressure":"#), let v = number(), ContactDetails.pressureIsValid(v)
          else { return nil }
          pressure = v
          member(8)
        }
      case UInt8(ascii: "x"):
        guard x == nil, s.consume(#"x":"#), let v = number() else { return nil }
        x = v
        member(2)
      case UInt8(ascii: "y"):
        guard y == nil, s.consume(#"y":"#), let v = number() else { return nil }
        y = v
        member(3)
      case UInt8(ascii: "r"):
        if s.consume(#"radiusX":"#) {
          guard radiusX == nil, let v = number() else { return nil }
          radiusX = v
          member(5)
        } else if s.consume(#"radiusY":"#) {
          guard radiusY == nil, let v = number() else { return nil }
          radiusY = v
          member(6)
        } else {
          guard radius == nil, s.consume(#"radius":"#), let v = number(), ContactDetails.radiusIsValid(v)
          else { return nil }
          radius = v
          member(9)
        }
      case UInt8(ascii: "f"):
        guard force == nil, s.consume(#"force":"#), let v = number() else { return nil }
        force = v
        member(4)
      case UInt8(ascii: "k"):
        guard kind == nil, s.consume(#"kind":""#), let k = kindWord() else { return nil }
        kind = k
        member(7, isNumber: false)
      case UInt8(ascii: "a"):
        if s.consume(#"altitude":"#) {
          guard altitude == nil, let v = number(), ContactDetails.altitudeIsValid(v) else { return nil }
          altitude = v
          member(10)
        } else {
          guard azimuth == nil, s.consume(#"azimuth":"#), let v = number(), ContactDetails.azimuthIsValid(v)
          else { return nil }
          azimuth = v
          member(11)
        }
      case UInt8(ascii: "h"):
        guard hover == nil, s.consume(#"hover":"#) else { return nil }
        if s.consume("true") {
          hover = true
        } else {
          guard s.consume("false") else { return nil }
          hover = false
        }
        member(12, isNumber: false)
      default:
        return nil
      }
    } while s.consume(#",""#)
    guard s.consume("}"), let id, let phase, let x, let y else { return nil }
    let details: ContactDetails? =
      kind == nil && pressure == nil && radius == nil && altitude == nil && azimuth == nil && hover == nil
      ? nil
      : ContactDetails(
        kind: kind, pressure: pressure, radius: radius, altitude: altitude, azimuth: azimuth, hover: hover)
    return (
      TouchPoint(id: id, phase: phase, x: x, y: y, force: force, radiusX: radiusX, radiusY: radiusY, details: details),
      canonical
    )
  }

  /// A kind after its opening quote, through the closing one.
  private mutating func kindWord() -> TouchKind? {
    if s.consume(#"pen""#) { return .pen }
    if s.consume(#"finger""#) { return .finger }
    if s.consume(#"eraser""#) { return .eraser }
    if s.consume(#"mouse""#) { return .mouse }
    return nil
  }

  /// A phase after its opening quote, through the closing one.
  private mutating func phaseWord() -> TouchPhase? {
    if s.consume(#"moved""#) { return .moved }
    if s.consume(#"stationary""#) { return .stationary }
    if s.consume(#"began""#) { return .began }
    if s.consume(#"ended""#) { return .ended }
    if s.consume(#"cancelled""#) { return .cancelled }
    return nil
  }

  /// A finite number, or nil for anything the scanner would refuse or note. The usual touch
  /// numbers (an optional minus, at most 15 digits with an optional fraction, no exponent) are
  /// read here; `JSONScanner.readNumber` reads the rest from the same start, and for these it
  /// would compute the same value: the digits as an integer below 2^53 divided by an exact
  /// power of ten (correctly rounded, as both use).
  private mutating func number() -> Double? {
    guard let base = s.bytes.baseAddress else { return nil }
    let start = s.index
    let end = s.bytes.count
    @inline(__always) func digit(_ i: Int) -> UInt64? {
      let d = base.load(fromByteOffset: i, as: UInt8.self) &- 0x30
      return d < 10 ? UInt64(d) : nil
    }
    var i = start
    let negative = i < end && base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: "-")
    if negative { i += 1 }
    let first = i
    var mantissa: UInt64 = 0
    while i < end, let d = digit(i) {
      mantissa = mantissa &* 10 &+ d
      i += 1
    }
    let integerDigits = i - first
    var fractionDigits = 0
    if i < end, base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: ".") {
      i += 1
      let fractionStart = i
      while i < end, let d = digit(i) {
        mantissa = mantissa &* 10 &+ d
        i += 1
      }
      fractionDigits = i - fractionStart
      if fractionDigits == 0 { i = end }  // "5." is the scanner's to refuse
    }
    let ordinary =
      integerDigits > 0 && integerDigits + fractionDigits <= 15 && i < end
      && base.load(fromByteOffset: i, as: UInt8.self) | 0x20 != UInt8(ascii: "e")
      && (integerDigits == 1 || base.load(fromByteOffset: first, as: UInt8.self) != UInt8(ascii: "0"))
    guard ordinary else {
      numberIsCanonical = false
      s.index = start
      guard let c = s.peek(), c == UInt8(ascii: "-") || (c >= 0x30 && c <= 0x39) else { return nil }
      return try? s.readNumber()
    }
    s.index = i
    // As `JSONWriter.number` writes it: a whole number as an integer (never "-0"); otherwise
    // at most six decimals, no trailing zero, and small enough that rounding the double to
    // millionths gives these digits back (below 1e9, as there the error is under a tenth).
    numberIsCanonical =
      fractionDigits == 0
      ? !(negative && mantissa == 0)
      : fractionDigits <= 6 && integerDigits <= 9
        && base.load(fromByteOffset: i - 1, as: UInt8.self) != UInt8(ascii: "0")
    let v = Double(mantissa) / Self.powerOfTen(fractionDigits)
    return negative ? -v : v
  }

  /// 10^`e` for `e` in 0...15, an exact double. A switch the compiler makes a table of
  /// constants: a lazily built static array cost a `swift_once` check on every number.
  @inline(__always) private static func powerOfTen(_ e: Int) -> Double {
    switch e {
    case 0: 1
    case 1: 1e1
    case 2: 1e2
    case 3: 1e3
    case 4: 1e4
    case 5: 1e5
    case 6: 1e6
    case 7: 1e7
    case 8: 1e8
    case 9: 1e9
    case 10: 1e10
    case 11: 1e11
    case 12: 1e12
    case 13: 1e13
    case 14: 1e14
    default: 1e15
    }
  }

  /// 2^53 - 1: `seq` and touch ids must be whole numbers within it (protocol §2).
  private static let largestExactInteger = 9_007_199_254_740_991.0
}

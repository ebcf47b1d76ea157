import TouchProtocol

/// One record of a node's data message, read from the bus. Its payloads stay in the message's
/// bytes (`payload`, `extra` are ranges there).
struct BusRecord {
  var kind: BusRecordKind
  /// A full observer queue may drop it (raw touches, gesture `changed`, scene states).
  var supersedable: Bool
  var session: String
  var source: String
  /// The origin node's stream for this session (a new one each time the session is made
  /// there) and the record's number in it: a gap in the numbers is what observers missed.
  var stream: UInt64
  var sessionSeq: UInt64
  /// The origin message's `seq`, `t` and `rt`.
  var seq: Int64
  var t: Double
  var rt: Double
  /// Gesture records: which gesture, its state, id and place (for the `cancelled` a node
  /// sends on behalf of a node that died).
  var gesture = Gesture()
  /// `source` records: the event; `control`/`controlError`: the observer (node/serial).
  var arg: String
  var payload: Range<Int>
  var extra: Range<Int>

  struct Gesture {
    var kind: GestureKind = .tap
    var state: GestureState = .recognized
    var id = 0
    var x = 0.0
    var y = 0.0
  }

  /// Largest payload a record may carry (a message is at most a few kB; scenes more).
  static let maxPayload = 1 << 20

  static func read(_ r: inout BusReader) throws(BusFormatError) -> BusRecord {
    let k = try r.u8()
    guard let kind = BusRecordKind(rawValue: k) else { throw .badKind(k) }
    let flags = try r.u8()
    // The end of an announcement belongs to no session.
    let session = try r.name(allowEmpty: kind == .announceEnd)
    // The reader allows A-Z a-z 0-9 . _ -; a session name has no dot.
    guard !session.utf8.contains(UInt8(ascii: ".")) else { throw .badName }
    let source = try r.name(allowEmpty: true)
    // Numbers are bounded here, where they enter, so that nothing the core does with them
    // (the next number expected, a gap's size, nanoseconds of `rt`) can trap: `BusReader`.
    let stream = try r.counter()
    let sessionSeq = try r.counter()
    let seq = Int64(try r.counter())
    let t = try r.f64()
    let rt = try r.serverTime()
    var record = BusRecord(
      kind: kind, supersedable: flags & 1 != 0, session: session, source: source, stream: stream,
      sessionSeq: sessionSeq, seq: seq,
      t: t, rt: rt, arg: "", payload: 0..<0, extra: 0..<0)
    if kind == .gesture {
      let g = Int(try r.u8())
      let s = Int(try r.u8())
      guard g < GestureKind.allCases.count, s < GestureState.allCases.count else { throw .badKind(k) }
      record.gesture.kind = GestureKind.allCases[g]
      record.gesture.state = GestureState.allCases[s]
      // The engine numbers gestures from 1 (0: none); the id is written to observers as JSON.
      record.gesture.id = Int(try r.counter())
      record.gesture.x = try r.f64()
      record.gesture.y = try r.f64()
    }
    record.arg = try r.name(allowEmpty: true)
    record.payload = try r.payload(maxLength: maxPayload)
    record.extra = try r.payload(maxLength: maxPayload)
    return record
  }
}

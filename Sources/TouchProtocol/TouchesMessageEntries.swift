/// The entries of a `touches` message the server wrote (here, or on another cluster node):
/// what each says of its touch and where its object ends, so a copy of the message can carry
/// one more member in each (`ServerMessage.writePredicted`) without being written again.
public struct TouchesMessageEntries: Sendable {
  public struct Entry: Sendable, Equatable {
    public var id: Int64
    public var phase: TouchPhase
    public var x: Double
    public var y: Double
    /// `hover: true`: a pen above the glass.
    public var hovering: Bool
    /// The offset of the entry's closing `}` in the message.
    public var end: Int

    public init(id: Int64, phase: TouchPhase, x: Double, y: Double, hovering: Bool = false, end: Int = 0) {
      self.id = id
      self.phase = phase
      self.x = x
      self.y = y
      self.hovering = hovering
      self.end = end
    }
  }

  public private(set) var entries: [Entry] = []

  /// Nil unless `message` is one JSON object (nothing after it) whose `touches` is an array of
  /// entries, each with an integer `id`, a known `phase` and numbers `x` and `y`: a record from
  /// the bus that looks like a message but is not one (`ClusterNode.check` looks no further)
  /// is sent on without predictions.
  public init?(_ message: UnsafeRawBufferPointer) {
    var s = JSONScanner(message, maxDepth: Limits().maxDepth)
    var found: [Entry] = []
    var sawTouches = false
    do throws(JSONScanner.Failure) {
      s.skipWhitespace()
      try s.readObject(depth: 1) { (s: inout JSONScanner, key) throws(JSONScanner.Failure) in
        guard s.equals(key, "touches"), !sawTouches else { return try s.skipValue(depth: 1) }
        sawTouches = true
        s.skipWhitespace()
        try s.readArray(depth: 2) { (s: inout JSONScanner, _) throws(JSONScanner.Failure) in
          s.skipWhitespace()
          found.append(try Self.entry(&s))
        }
      }
      s.skipWhitespace()
    } catch {
      return nil
    }
    // One JSON object and nothing after it: what is read back splices into valid JSON.
    guard sawTouches, s.atEnd else { return nil }
    entries = found
  }

  private static func entry(_ s: inout JSONScanner) throws(JSONScanner.Failure) -> Entry {
    var id: Int64?, phase: TouchPhase?, x: Double?, y: Double?, hovering = false
    try s.readObject(depth: 3) { (s: inout JSONScanner, key) throws(JSONScanner.Failure) in
      s.skipWhitespace()
      if s.equals(key, "id"), s.peekKind() == .number {
        let v = try s.readNumber()
        guard v == v.rounded(), abs(v) <= 9_007_199_254_740_991 else { throw .syntax("id") }
        id = Int64(v)
      } else if s.equals(key, "phase"), s.peekKind() == .string {
        phase = TouchPhase(rawValue: s.string(try s.readString()))
      } else if s.equals(key, "x"), s.peekKind() == .number {
        x = try s.readNumber()
      } else if s.equals(key, "y"), s.peekKind() == .number {
        y = try s.readNumber()
      } else if s.equals(key, "hover"), s.peekKind() == .bool {
        hovering = try s.readBoolOrNull() == true
      } else {
        try s.skipValue(depth: 3)
      }
    }
    guard let id, let phase, let x, let y else { throw .syntax("entry") }
    // `readObject` has just passed the closing brace.
    return Entry(id: id, phase: phase, x: x, y: y, hovering: hovering, end: s.index - 1)
  }
}

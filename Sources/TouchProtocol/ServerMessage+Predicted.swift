extension ServerMessage {
  /// A predicted position: the entry whose closing `}` is at `end` in a `touches` message
  /// gets `"predicted":{"x":…,"y":…}` as its last member.
  public struct Prediction: Sendable, Equatable {
    public var end: Int
    public var x: Double
    public var y: Double

    public init(end: Int, x: Double, y: Double) {
      self.end = end
      self.x = x
      self.y = y
    }
  }

  /// `message` (a `touches` message, as its observers without `?predict` get it) with
  /// `predictions` (in the order of their entries) spliced in: every byte of it is kept, so
  /// what the source sent and what the server added to it (`palm`, say) stays as it is, and
  /// the prediction is the entry's last member.
  public static func writePredicted(
    _ message: UnsafeRawBufferPointer, _ predictions: [Prediction], _ w: inout JSONWriter
  ) {
    var copied = 0
    for p in predictions {
      // At the writer's top level, `json` copies the bytes and adds no comma.
      w.json(UnsafeRawBufferPointer(rebasing: message[copied..<p.end]))
      w.json(UnsafeRawBufferPointer(start: predictedName.utf8Start, count: predictedName.utf8CodeUnitCount))
      w.beginObject()
      w.key("x")
      w.number(p.x)
      w.key("y")
      w.number(p.y)
      w.endObject()
      copied = p.end
    }
    w.json(UnsafeRawBufferPointer(rebasing: message[copied...]))
  }

  private static let predictedName: StaticString = #","predicted":"#

  /// About what `writePredicted` needs for `message`, with `count` predictions.
  public static func predictedCapacity(_ message: UnsafeRawBufferPointer, count: Int) -> Int {
    message.count + count * 48
  }
}

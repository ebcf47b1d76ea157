/// A write position inside room a `JSONWriter` reserved (`members(reserving:_:)`): text and
/// values appended with no capacity check of their own. Each value writes at most its type's
/// bound (`maxIntBytes`, `maxNumberBytes`; text its length), which the reservation covers.
public struct JSONCursor {
  var position: UnsafeMutablePointer<UInt8>

  init(_ position: UnsafeMutablePointer<UInt8>) { self.position = position }

  /// The most an `int` writes.
  public static var maxIntBytes: Int { JSONWriter.maxIntBytes }
  /// The most a `number` writes.
  public static var maxNumberBytes: Int { JSONWriter.maxNumberBytes }

  /// JSON text known when the program is built (names with their quotes, colons and commas),
  /// copied as it is.
  @inline(__always) public mutating func text(_ s: StaticString) {
    position = JSONWriter.writeLiteral(s, at: position)
  }

  /// As `JSONWriter.int`, without the comma: it follows a name.
  @inline(__always) public mutating func int(_ v: Int64) {
    position = JSONWriter.writeInt(v, at: position)
  }

  /// As `JSONWriter.number`, without the comma: it follows a name.
  @inline(__always) public mutating func number(_ v: Double) {
    position = JSONWriter.writeNumber(v, at: position)
  }
}

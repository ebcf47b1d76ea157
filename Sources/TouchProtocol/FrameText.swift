/// The parts of a source's compact `frame` message whose text is exactly what the server
/// writes for the same values (`MessageDecoder.compactFrame`), so its `touches` message copies
/// them instead of writing them again (`ServerMessage.touchesJSON`). Pointers into the
/// message's bytes: valid only while those are.
public struct FrameText {
  /// `"seq":…,"t":…`: both members, next to each other and in that order.
  public var head: UnsafeRawBufferPointer?
  /// The `touches` array, brackets included.
  public var touches: UnsafeRawBufferPointer?

  public init(head: UnsafeRawBufferPointer? = nil, touches: UnsafeRawBufferPointer? = nil) {
    self.head = head
    self.touches = touches
  }
}

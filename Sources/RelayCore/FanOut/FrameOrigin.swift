/// The `touches` message written for a frame (`RelayCore.mirror`), handed to the gestures the
/// same frame causes (`deliver`), and where in its bytes its origin's members are: a gesture of
/// the same origin (the frame's own time) copies them instead of writing its source, `seq`, `t`
/// and `rt` again. Plain values and one reference: copying the origin itself in and out would
/// cost more than the copy saves.
struct FrameOrigin {
  let message: OutgoingMessage
  /// Within `message.bytes`.
  let members: Range<Int>
  /// The origin's device time, which a gesture's must equal (the source, `seq` and `rt` are
  /// the frame's for every gesture it causes).
  let t: Double
}

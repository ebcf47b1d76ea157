/// One finger's contact, from its `began` to its `ended` (or `cancelled`, or the end of the
/// recording): its points in the source's surface coordinates and device times (ms). A pen
/// hovering above the glass makes none (`RecordingContent` skips its entries).
struct FingerStroke {
  var finger: Int
  var points: [(x: Double, y: Double, t: Double)]
  /// How it finished: "ended", "cancelled", or nil when the recording stopped first.
  var end: String?
}

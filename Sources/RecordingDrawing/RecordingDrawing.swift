/// Draws a `--record` file as one SVG: each finger's trail on the source's surface (scene
/// regions under them, a colour per finger, where each touch began and ended marked), the
/// recording's facts beside it, and under it a timeline of the gestures the engine
/// recognized against device time, each with its gist (double tap, pinch scale, ...).
public enum RecordingDrawing {
  /// `recording`: the file's text; `replayed`: `RecordingReplay.replay(recording)`'s output
  /// (what an observer got, with the raw mirror), whose gestures and scene states are drawn.
  public static func svg(recording: String, replayed: [String]) throws -> String {
    let content = try RecordingContent(recording: recording, replayed: replayed)
    return RecordingPicture(content).svg()
  }
}

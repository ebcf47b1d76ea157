/// Why a recording could not be drawn.
public struct RecordingDrawingError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}

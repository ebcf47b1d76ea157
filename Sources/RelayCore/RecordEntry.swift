/// One line of a source's recording (`--record`): what `RecordingReplay` needs to run the same
/// input through the same core and get the same output.
public enum RecordEntry: Sendable {
  /// The source's connection opened (the recording's header).
  case opened(session: String, serial: Int, rt: Double)
  /// It said hello and got this id (or resumed it).
  case joined(source: String)
  /// A message it sent, as received.
  case message([UInt8], rt: Double)
  /// Its engine's deadline `deadline` (device ms) fell due at server time `rt`.
  case timer(deadline: Double, rt: Double)
  /// Its connection closed; `peerCode` is the close code it sent, if any.
  case close(peerCode: UInt16?, rt: Double)
}

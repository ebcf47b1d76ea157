import TouchProtocol

/// What the TUIO input tells its driver: a sender became a source, sent a frame, or left.
/// `sender` is the key `TUIOInput` follows it by (see `TUIOInput.key`).
public enum TUIOEvent: Sendable, Equatable {
  /// A new source: its `hello` (device name and surface) comes first.
  case joined(sender: String, hello: Hello)
  /// The device changed (a TUIO 2.0 `dim` that differs from the surface in use).
  case updated(sender: String, hello: Hello)
  case frame(sender: String, frame: Frame)
  /// Silent for longer than the timeout: its fingers are cancelled, observers told `left`.
  case left(sender: String)
}

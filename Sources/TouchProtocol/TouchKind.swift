/// What touches the surface (protocol §2.1, `touches[].kind`), as W3C Pointer Events'
/// `pointerType` names it, with a pen's eraser end apart. A touch entry without `kind` is a
/// finger.
public enum TouchKind: String, Sendable, CaseIterable, Codable {
  case finger, pen, eraser, mouse

  /// The name as a literal, for the encoder to copy (see `TouchPhase.wireName`).
  public var wireName: StaticString {
    switch self {
    case .finger: "finger"
    case .pen: "pen"
    case .eraser: "eraser"
    case .mouse: "mouse"
    }
  }
}

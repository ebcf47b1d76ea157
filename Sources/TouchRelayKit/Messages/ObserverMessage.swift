import TouchProtocol

/// A message from the relay, typed. Observers receive every kind; a source receives
/// `welcome`, `error` and `dropped`. `disconnected` is the library's own notice, not the
/// server's: the connection ended and the library is reconnecting (the next `welcome` starts
/// the new connection; what happened in between was not seen).
public enum ObserverMessage: Sendable, Equatable {
  case welcome(Welcome)
  case source(SourceNotice)
  case touches(TouchesMessage)
  case gesture(GestureMessage)
  case scene(SceneMessage)
  /// The server dropped `count` messages for this connection (protocol §5); a fresh `scene`
  /// snapshot of each followed scene comes next.
  case dropped(count: Int)
  case error(RelayError)
  case disconnected(code: UInt16, reason: String)
}

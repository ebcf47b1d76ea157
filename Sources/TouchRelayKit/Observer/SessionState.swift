import TouchProtocol

/// What an observer knows of its session: the sources present and each one's latest scene
/// state. Replaced by each `welcome` (so a reconnect starts again from the server's snapshot),
/// then kept up to date by `source` and `scene` messages.
public struct SessionState: Sendable, Equatable {
  /// In join order.
  public private(set) var sources: [SourceInfo] = []
  /// The latest state of each source's scene, with the `seq` that produced it (nil for a
  /// first state or a snapshot).
  public private(set) var scenes: [String: (state: JSONValue, seq: Int64?)] = [:]

  public init() {}

  public mutating func apply(_ message: ObserverMessage) {
    switch message {
    case .welcome(let w):
      sources = w.sources
      scenes = [:]
      for s in w.scenes { scenes[s.source] = (s.state, nil) }
    case .source(let notice):
      switch notice.event {
      case .joined, .rejoined, .updated:
        if let i = sources.firstIndex(where: { $0.id == notice.source }) {
          sources[i] = notice.info
        } else {
          sources.append(notice.info)
        }
      case .left:
        sources.removeAll { $0.id == notice.source }
        scenes[notice.source] = nil
      }
    case .scene(let scene):
      // A state older than the one kept is ignored (protocol §2.3, `scene`).
      let seq = scene.origin?.seq
      if let seq, let kept = scenes[scene.source]?.seq, seq < kept { return }
      scenes[scene.source] = (scene.state, seq)
    case .touches, .gesture, .dropped, .error, .disconnected:
      break
    }
  }

  public static func == (a: SessionState, b: SessionState) -> Bool {
    a.sources == b.sources && a.scenes.count == b.scenes.count
      && a.scenes.allSatisfy { key, value in
        b.scenes[key].map { $0.state == value.state && $0.seq == value.seq } ?? false
      }
  }
}

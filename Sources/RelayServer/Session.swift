import TouchProtocol

/// The peers of one session name. Created when the first peer joins, freed when the last
/// leaves (a source inside its resume window still counts, so observers get its `left`).
final class Session {
  let name: String
  /// In join order, so `welcome` lists sources the same way every time.
  var sources: [Connection] = []
  var observers: [Connection] = []
  /// Sources that dropped without a clean close and may still resume, by source id.
  var departed: [String: DepartedSource] = [:]

  init(name: String) {
    self.name = name
  }

  var isEmpty: Bool { sources.isEmpty && observers.isEmpty && departed.isEmpty }

  /// Sources that have said hello, as observers see them.
  var activeSources: [SourceState] { sources.compactMap { $0.source } }
}

/// A source that went away without a clean close, held for the resume window.
struct DepartedSource {
  var info: SourceInfo
  /// Server time (ms) after which it is gone for good and observers get `left`.
  var deadline: Double
}

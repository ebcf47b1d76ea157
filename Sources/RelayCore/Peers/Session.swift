/// The peers of one session name. Created when the first peer joins, freed when the last
/// leaves (a source inside its resume window still counts, so observers get its `left`).
public final class Session {
  public let name: String
  /// In join order, so `welcome` lists sources the same way every time.
  // Unchecked exclusivity: read for every fan-out (see `RelayCore.actions`).
  @exclusivity(unchecked) public internal(set) var sources: [Peer] = []
  @exclusivity(unchecked) public internal(set) var observers: [Peer] = [] {
    didSet { tuioObservers = observers.reduce(0) { $0 + ($1.filter.format == .tuio ? 1 : 0) } }
  }
  /// Observers that asked for `format=tuio`: counted when observers come and go, as every
  /// frame asks (an observer's filter is set when it opens).
  @exclusivity(unchecked) private(set) var tuioObservers = 0
  /// Sources that dropped without a clean close and may still resume, by source id.
  public internal(set) var departed: [String: DepartedSource] = [:]
  /// A cluster node's stream of records for this session on the bus, and the number of its
  /// last record (`RelayCore.publish`).
  var busStream: UInt64 = 0
  @exclusivity(unchecked) var busSeq: UInt64 = 0

  init(name: String) {
    self.name = name
  }

  public var isEmpty: Bool { sources.isEmpty && observers.isEmpty && departed.isEmpty }

  /// Sources that have said hello, as observers see them.
  public var activeSources: [SourceState] { sources.compactMap { $0.source } }
}

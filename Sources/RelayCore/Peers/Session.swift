import CPrefetch
import TouchProtocol

/// The peers of one session name. Created when the first peer joins, freed when the last
/// leaves (a source inside its resume window still counts, so observers get its `left`).
public final class Session {
  public let name: String
  /// In join order, so `welcome` lists sources the same way every time.
  public internal(set) var sources: [Peer] = []
  public internal(set) var observers: [Peer] = [] {
    didSet {
      tuio2Observers = observers.reduce(0) { $0 + ($1.filter.format == .tuio2 ? 1 : 0) }
      tuioObservers = observers.reduce(0) { $0 + ($1.filter.format == .tuio ? 1 : 0) }
      predictObservers = observers.reduce(0) { $0 + ($1.filter.predict != nil ? 1 : 0) }
      observersBuffer = hintAddress(of: observers)
      firstObserver = observers.first.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) }
    }
  }
  /// Where `observers`' storage and its first peer are, kept as they change, for
  /// `prefetchObservers`: reading the array itself would retain it, the very cache miss a
  /// prefetch is meant to hide. Hints only: nothing reads or writes through them.
  private var observersBuffer: UnsafeRawPointer?
  private var firstObserver: UnsafeRawPointer?
  /// Observers that asked for `format=tuio2` (TUIO 2.0), counted as `tuioObservers` are.
  private(set) var tuio2Observers = 0
  /// Observers that asked for `format=tuio`: counted when observers come and go, as every
  /// frame asks (an observer's filter is set when it opens).
  private(set) var tuioObservers = 0
  /// Observers that asked for `predict=MS`, counted likewise.
  private(set) var predictObservers = 0
  /// Sources that dropped without a clean close and may still resume, by source id.
  public internal(set) var departed: [String: DepartedSource] = [:]
  /// A cluster node's stream of records for this session on the bus, and the number of its
  /// last record (`RelayCore.publish`).
  var busStream: UInt64 = 0
  var busSeq: UInt64 = 0

  init(name: String) {
    self.name = name
  }

  /// A frame of one of its sources has arrived and is being decoded: start loading the
  /// observers' list and its first peer (all of a session's observers, in the usual case of
  /// one screen watching one phone), which the mirror reads next. With hundreds of sessions
  /// they have left the caches since the session's last frame.
  @inline(__always) func prefetchObservers() {
    tr_prefetch(observersBuffer, 64)
    tr_prefetch(firstObserver, 128)
  }

  public var isEmpty: Bool { sources.isEmpty && observers.isEmpty && departed.isEmpty }

  /// Sources that have said hello, as observers see them.
  public var activeSources: [SourceState] { sources.compactMap { $0.source } }
}

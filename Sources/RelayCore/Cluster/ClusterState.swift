/// A cluster node's side of the core: what it has for the bus, what it knows of the other
/// nodes and their sources, and whether the bus is up.
public final class ClusterState {
  public let rules: ClusterRules
  var outbox: BusOutbox
  /// The driver's subscriptions are in place and the bus answers.
  public internal(set) var busUp = false
  var busUpSince: Double = 0
  var nodes: [String: RemoteNode] = [:]
  /// Other nodes' sources, by session name.
  var directory: [String: RemoteSession] = [:]
  var nextOrder = 0
  /// Each local session gets a stream of its own (see `BusRecord.stream`).
  var nextStream: UInt64 = 1
  /// Answers to `sync` requests are numbered, so a receiver knows which sources one covered.
  var syncRound: UInt64 = 0
  public internal(set) var counters = ClusterCounters()
  /// Server ms between a data message's first record's `rt` and its arrival (a shared wall
  /// clock when clustered), for the driver's bus-delay histogram.
  public internal(set) var lastDelay: Double?
  /// Set while a local source handed over to another node closes: what it says is for local
  /// observers only.
  var busMuted = false
  /// Records read from one data message before any is acted on (reused).
  var pending: [BusRecord] = []

  init(rules: ClusterRules) {
    self.rules = rules
    outbox = BusOutbox(node: rules.node, epoch: rules.epoch)
  }

  public var node: String { rules.node }

  /// The nodes whose data channels the driver should subscribe to.
  public var knownNodes: [String] { Array(nodes.keys).sorted() }

  /// The other nodes by name, and their sessions by name, for what goes over all of them:
  /// `nodes` and `directory` are dictionaries, whose order changes from one process to the
  /// next (Swift seeds its hashing per process), and the same events must give the same
  /// actions, records and messages in the same order. Not on a per-frame path: heartbeats,
  /// nodes lost or gone, the ends of sync rounds.
  var nodesByName: [RemoteNode] { nodes.values.sorted { $0.id < $1.id } }
  var directoryByName: [RemoteSession] { directory.values.sorted { $0.name < $1.name } }

  /// Sources of other nodes this node knows (listed or held), for `/healthz`.
  public var remoteSourceCount: Int { directory.values.reduce(0) { $0 + $1.sources.count } }
}

import TouchProtocol

/// One peer of a session: a source or an observer. Its state lives here, its socket with the
/// driver, which names it by `id`. Touched by the driver's one thread only; the core holds it
/// from `open` until `closed`.
public final class Peer: DeadlineQueueItem {
  public enum Role: String, Sendable {
    case source, observer
  }

  public let id: PeerID
  public let serial: Int
  public let role: Role
  public let session: Session
  public let filter: ObserverFilter
  /// The client's address, for the per-address limit and the logs.
  public let address: String
  public internal(set) var lifecycle = PeerLifecycle.open
  /// The driver was told of pending output (`drainOutputs`) and has not taken all of it yet: more
  /// messages need no new action.
  var announced = false
  var queue: ObserverQueue
  /// Sent before the queue: the notices that follow a drop (scene snapshots).
  var priority: [OutgoingMessage] = []
  /// Set once the source has said hello.
  public internal(set) var source: SourceState?
  /// Where this source's engine deadline sits in the core's `DeadlineQueue`, if it is there.
  public var deadlineIndex: Int?
  /// Messages in and out, errors sent.
  public internal(set) var counts = PeerCounts()
  /// Its rates and error window (`FloodRules`).
  var flood = PeerFloodState()
  /// Admitted with a signed token: when it expires, and its place in the core's queue of
  /// expiries.
  var tokenExpiry: TokenExpiry?

  init(
    id: PeerID, serial: Int, role: Role, session: Session, filter: ObserverFilter, queue: ObserverQueue,
    address: String
  ) {
    self.id = id
    self.serial = serial
    self.role = role
    self.session = session
    self.filter = filter
    self.queue = queue
    self.address = address
  }

  /// Whether the driver reads its socket (see `PeerFloodState.reading`).
  public var reading: ReadState { flood.reading }

  public var messagesIn: Int { counts.messagesIn }
  public var messagesOut: Int { counts.messagesOut }
  public var errorsSent: Int { counts.errorsSent }

  /// When its signed token expires (server ms), if it was admitted with one.
  public var tokenExpiresAt: Double? { tokenExpiry?.due }

  /// Messages are waiting (or a `dropped` notice is owed).
  var hasPendingOutput: Bool { !priority.isEmpty || !queue.isEmpty || queue.dropped > 0 }

  /// Messages waiting in its queue.
  public var queuedCount: Int { queue.count }

  /// Messages dropped from its queue since it opened.
  public var totalDropped: Int { queue.totalDropped }

  /// The close the server decided on, to send once nothing is left to write (the driver learns
  /// of it from `nextWrite`).
  var closeToSend: (code: CloseCode, reason: String)? {
    if case .closing(let code, let reason) = lifecycle { return (code, reason) }
    return nil
  }

  public var isClosed: Bool {
    if case .closed = lifecycle { return true }
    return false
  }

  /// Messages may be queued for it (it is neither closing nor closed).
  public var isOpen: Bool {
    if case .open = lifecycle { return true }
    return false
  }
}

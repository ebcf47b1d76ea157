import TouchProtocol

/// One peer of a session: a source or an observer. Its state lives here, its socket with the
/// driver (`transport`). Touched by the driver's one thread only; the core holds it from
/// `open` until `closed`.
public final class Peer: DeadlineQueueItem {
  public enum Role: String, Sendable {
    case source, observer
  }

  public let serial: Int
  public let role: Role
  public let session: Session
  public let filter: ObserverFilter
  /// The client's address, for the per-address limit and the logs.
  public let address: String
  /// The driver's own handle for this peer's connection (unretained; nil with no connection).
  /// `closed` clears it, before the driver lets the handle go.
  public var transport: UnsafeMutableRawPointer? {
    get { handle }
    set { handle = newValue }
  }
  var handle: UnsafeMutableRawPointer?
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
    serial: Int, role: Role, session: Session, filter: ObserverFilter, queue: ObserverQueue,
    address: String, transport: UnsafeMutableRawPointer?
  ) {
    self.serial = serial
    self.role = role
    self.session = session
    self.filter = filter
    self.queue = queue
    self.address = address
    handle = transport
  }

  /// Whether the driver reads its socket (see `PeerFloodState.reading`).
  public var reading: ReadState { flood.reading }

  public var messagesIn: Int { counts.messagesIn }
  public var messagesOut: Int { counts.messagesOut }
  public var errorsSent: Int { counts.errorsSent }

  /// When its signed token expires (server ms), if it was admitted with one.
  public var tokenExpiresAt: Double? { tokenExpiry?.due }

  /// Messages are waiting (or a `dropped` notice is owed).
  public var hasPendingOutput: Bool { !priority.isEmpty || !queue.isEmpty || queue.dropped > 0 }

  /// Messages waiting in its queue.
  public var queuedCount: Int { queue.count }

  /// Messages dropped from its queue since it opened.
  public var totalDropped: Int { queue.totalDropped }

  /// The close the server decided on, to send once nothing is left to write.
  public var closeToSend: (code: CloseCode, reason: String)? {
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

  /// The driver may still write to it: open, or closing after what it has queued.
  public var isWritable: Bool {
    switch lifecycle {
    case .open, .closing: return true
    case .peerClosed, .closed: return false
    }
  }
}

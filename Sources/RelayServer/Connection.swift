import TouchProtocol

/// One WebSocket peer. Lives on the service thread only; the wsi's opaque user data points
/// here (unretained; the relay's table holds the reference until LWS_CALLBACK_CLOSED).
final class Connection: DeadlineQueueItem {
  enum Role: String {
    case source, observer
  }

  /// nil for a connection with no socket (replaying a recording).
  let wsi: OpaquePointer?
  let serial: Int
  let role: Role
  let session: Session
  let filter: ObserverFilter
  let openedAt: Double
  let peer: String
  // Unchecked exclusivity: see the comment on `Relay.batched`.
  @exclusivity(unchecked) var queue: ObserverQueue
  /// Sent before the queue: the notices that follow a drop (scene snapshots).
  @exclusivity(unchecked) var priority: [OutgoingMessage] = []
  /// The message last handed to lws_write; kept alive until the next writable callback.
  var inFlight: OutgoingMessage?
  var writeRequested = false
  /// Listed in the relay's `toFlush`: written at the end of the current callback.
  var flushQueued = false
  /// Pending messages leave together, one send per writable callback (see `FrameBatch`);
  /// false when permessage-deflate may be in use, where lws must frame each message itself.
  var batchesWrites = false
  /// Set when the server decided to close; sent once the queue is empty (or at once if `now`).
  var pendingClose: (code: CloseCode, reason: String)?
  /// The close code the peer sent, if it closed first.
  var peerCloseCode: UInt16?
  /// The peer sent a close frame: lws answers it and closes; no more direct writes.
  var peerClosed = false
  /// Bytes of the message being reassembled from fragments.
  @exclusivity(unchecked) var rx: [UInt8] = []
  var source: SourceState?
  /// Where this source's engine deadline sits in the relay's `DeadlineQueue`, if it is there.
  var deadlineIndex: Int?
  /// Writes this source's input to a JSON-lines file (`--record`).
  var recorder: SourceRecorder?
  var messagesIn = 0
  var messagesOut = 0
  var errorsSent = 0
  /// Set at LWS_CALLBACK_CLOSED; nothing is queued or written after it.
  var closed = false
  /// `control` messages per second this peer may send (made at its first control).
  @exclusivity(unchecked) var controlGate: RateGate?
  /// Errors sent to this peer (`Relay.erred`), and, while the relay does not read it, until
  /// when (`Relay.pauseReading`).
  var errorWindow = WindowCount()
  var readsPausedUntil: Double?

  init(
    wsi: OpaquePointer?, serial: Int, role: Role, session: Session, filter: ObserverFilter,
    queue: ObserverQueue, openedAt: Double, peer: String
  ) {
    self.wsi = wsi
    self.serial = serial
    self.role = role
    self.session = session
    self.filter = filter
    self.queue = queue
    self.openedAt = openedAt
    self.peer = peer
  }

  var hasPendingOutput: Bool { !priority.isEmpty || !queue.isEmpty || queue.dropped > 0 }
}

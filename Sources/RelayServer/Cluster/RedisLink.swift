import CHiredis

/// One connection to Redis, on the service thread's event loop (both `--event-loop`s): a
/// `RawSocket`, so libwebsockets polls it, buffers what a send leaves over and reports its end
/// like any other connection. Replies are read by hiredis' RESP reader. Every command sent
/// owes a reply by a deadline (`replyTimeout`); a link that misses one is cut and the bus
/// reconnects. What waits to be sent is bounded (`maxPending`).
final class RedisLink {
  enum Role: String {
    case publisher, subscriber
  }

  let role: Role
  /// How long a reply may take (ms): Redis answers in well under a millisecond when well.
  static let replyTimeout = 2000.0
  /// Bytes waiting for the socket, beyond which a publish is refused (and counted).
  static let maxPending = 8 << 20

  private(set) var socket: RawSocket?
  private(set) var connected = false
  /// When it was asked to connect (ms), until it is connected.
  private(set) var connectingSince: Double?
  private var reader: UnsafeMutablePointer<redisReader>?
  /// Counts `reset()`s: a reply handler that reset the link (an error reply fails the bus)
  /// freed the reader the loop in `received` was reading from.
  private var generation = 0
  /// `RawSocket.headroom` spare bytes, then what waits to be written.
  private var pending: [UInt8]
  private let headroom = RawSocket.headroom
  /// Deadlines of the replies owed, oldest first (`owedHead` is the oldest's index).
  private var owed: [Double] = []
  private var owedHead = 0

  init(role: Role) {
    self.role = role
    pending = [UInt8](repeating: 0, count: RawSocket.headroom)
  }

  deinit {
    if let reader { redisReaderFree(reader) }
  }

  var pendingBytes: Int { pending.count - headroom }

  /// Starts connecting to `host:port` (a numeric address); `owner` hears the socket's events.
  func connect(context: OpaquePointer, host: String, port: Int, owner: any RawSocketOwner, at now: Double) -> Bool
  {
    reset()
    connectingSince = now
    socket = RawSocket.connect(context: context, host: host, port: port, owner: owner)
    return socket != nil
  }

  /// Forgets the connection's state (after it closed, or before a new one).
  func reset() {
    connected = false
    connectingSince = nil
    socket = nil
    pending.removeSubrange(headroom...)
    owed.removeAll(keepingCapacity: true)
    owedHead = 0
    generation &+= 1
    if let reader { redisReaderFree(reader) }
    reader = redisReaderCreate()
  }

  func didConnect() {
    connected = true
    connectingSince = nil
  }

  /// Cuts the connection; its `rawSocketClosed` follows.
  func cut() {
    socket?.cut()
  }

  /// Queues a command owing one reply per `replies`; false (nothing queued) when the link is
  /// down or too much waits already.
  @discardableResult
  func send(_ args: [[UInt8]], replies: Int = 1, at now: Double) -> Bool {
    guard socket != nil, pendingBytes < Self.maxPending else { return false }
    RESPCommand.append(args, to: &pending)
    for _ in 0..<replies { owed.append(now + Self.replyTimeout) }
    return true
  }

  /// Hands what waits to the socket, unless it still holds part of an earlier send (then once
  /// the socket is writable: `rawSocketWritable`).
  func flush() {
    guard connected, let socket, pendingBytes > 0 else { return }
    if socket.isHoldingUnsent {
      socket.askForWritable()
      return
    }
    let ok = socket.write(&pending)
    pending.removeSubrange(headroom...)
    if !ok { cut() }
  }

  /// Bytes read: every complete reply goes to `body`, until one resets the link (what follows
  /// it was for the connection now cut); false if they are not RESP.
  func received(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeMutablePointer<redisReply>) -> Void) -> Bool {
    guard let reader, let base = bytes.baseAddress else { return true }
    guard redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK else {
      return false
    }
    let current = generation
    while generation == current {
      var reply: UnsafeMutableRawPointer?
      guard redisReaderGetReply(reader, &reply) == REDIS_OK else { return false }
      guard let reply else { return true }
      // The reply is the caller's, not the reader's: freeing it after a reset is right.
      body(reply.assumingMemoryBound(to: redisReply.self))
      freeReplyObject(reply)
    }
    return true
  }

  /// A reply that answers a command came.
  func replied() {
    guard owedHead < owed.count else { return }
    owedHead += 1
    if owedHead == owed.count {
      owed.removeAll(keepingCapacity: true)
      owedHead = 0
    }
  }

  /// A reply is overdue, or the connection is taking too long: the link is not well.
  func isStalled(at now: Double) -> Bool {
    if let since = connectingSince, now - since > Self.replyTimeout { return true }
    return owedHead < owed.count && owed[owedHead] < now
  }
}

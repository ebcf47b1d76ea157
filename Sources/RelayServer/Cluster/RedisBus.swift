import CHiredis
import Logging
import RelayCore

/// The cluster bus on Redis pub/sub: a driver of the relay core beside libwebsockets. It
/// publishes the core's data messages on this node's channel (`PREFIX:node:NAME`), at most
/// one a loop iteration, and the core's notices on the nodes' channel (`PREFIX:nodes`);
/// subscribes to the nodes' channel and to each node the core knows; hands what it reads to
/// the core. Two connections (a subscribed connection takes no other commands), both on the
/// service thread's loop. When Redis is unreachable or stalls, both are cut and made again
/// with backoff; local sessions never wait for it.
final class RedisBus: RawSocketOwner {
  unowned let driver: LWSDriver
  let url: RedisURL
  /// The address connected to: a host name is resolved once, at start.
  let address: String
  let prefix: String
  let node: String
  let publisher = RedisLink(role: .publisher)
  let subscriber = RedisLink(role: .subscriber)
  /// The core has been told the bus is up (`busConnected`), and not since that it is down.
  private(set) var isUp = false
  private var nodesSubscribed = false
  private var publisherReady = false
  private var backoff = 100.0
  private var warnedUnreachable = false
  private var warnedPassword = false
  private var stopped = false
  private var reconnectTimer: RelayTimer!
  private var heartbeatTimer: RelayTimer!
  private var flushTimer: RelayTimer!
  private var flushScheduled = false
  private var lastPublish = -Double.infinity
  private(set) var counters = BusCounters()

  init(driver: LWSDriver, url: RedisURL, address: String, prefix: String, node: String) {
    self.driver = driver
    self.url = url
    self.address = address
    self.prefix = prefix
    self.node = node
    let me = Unmanaged.passUnretained(self).toOpaque()
    reconnectTimer = RelayTimer(loop: driver.eventLoop, owner: me, fire: redisReconnectFired)
    heartbeatTimer = RelayTimer(loop: driver.eventLoop, owner: me, fire: redisHeartbeatFired)
    flushTimer = RelayTimer(loop: driver.eventLoop, owner: me, fire: redisFlushFired)
  }

  var nodesChannel: String { "\(prefix):nodes" }
  func dataChannel(_ node: String) -> String { "\(prefix):node:\(node)" }

  /// Called once the context exists.
  func start() {
    connect()
    guard let context = driver.context else { return }
    heartbeatTimer.schedule(context, afterMilliseconds: 1000)
  }

  /// The relay is done: its connections close with the context, quietly.
  func stop() {
    stopped = true
    reconnectTimer.cancel()
    heartbeatTimer.cancel()
    flushTimer.cancel()
  }

  private func connect() {
    guard let context = driver.context else { return }
    let now = driver.now()
    nodesSubscribed = false
    publisherReady = false
    let a = publisher.connect(context: context, host: address, port: url.port, owner: self, at: now)
    let b = subscriber.connect(context: context, host: address, port: url.port, owner: self, at: now)
    if !a || !b { failed("could not start connecting") }
  }

  // MARK: - Link events (`RawSocketOwner`)

  func rawSocketConnected(_ socket: RawSocket) {
    let now = driver.now()
    guard let link = link(of: socket) else { return }
    link.didConnect()
    if let password = url.password { link.send([Array("AUTH".utf8), Array(password.utf8)], at: now) }
    switch link.role {
    case .publisher:
      // With a password, ready once Redis has taken it (`publisherReply`).
      publisherReady = url.password == nil
    case .subscriber:
      subscribe(nodesChannel, at: now)
      for n in driver.core.cluster?.knownNodes ?? [] { subscribe(dataChannel(n), at: now) }
    }
    link.flush()
    maybeUp()
  }

  func rawSocket(_ socket: RawSocket, received bytes: UnsafeRawBufferPointer) {
    guard let link = link(of: socket) else { return }
    let ok = link.received(bytes) { reply in
      switch link.role {
      case .publisher: publisherReply(reply)
      case .subscriber: subscriberReply(reply)
      }
    }
    if !ok { failed("the \(link.role.rawValue) connection sent something that is not RESP") }
    driver.performActions()
  }

  func rawSocketWritable(_ socket: RawSocket) {
    link(of: socket)?.flush()
  }

  func rawSocketClosed(_ socket: RawSocket, error: String?) {
    guard !stopped, let link = link(of: socket) else { return }
    link.reset()
    failed(error ?? "the \(link.role.rawValue) connection closed")
  }

  private func link(of socket: RawSocket) -> RedisLink? {
    if publisher.socket == socket { return publisher }
    if subscriber.socket == socket { return subscriber }
    return nil
  }

  // MARK: - Replies

  private func publisherReply(_ r: UnsafeMutablePointer<redisReply>) {
    publisher.replied()
    switch r.pointee.type {
    case REDIS_REPLY_ERROR:
      refused(text(r))
    case REDIS_REPLY_STATUS where !publisherReady:
      publisherReady = true  // AUTH
      maybeUp()
    default:
      break
    }
  }

  private func subscriberReply(_ r: UnsafeMutablePointer<redisReply>) {
    let now = driver.now()
    switch r.pointee.type {
    case REDIS_REPLY_ERROR:
      subscriber.replied()
      refused(text(r))
    case REDIS_REPLY_STATUS:
      subscriber.replied()  // AUTH
    case REDIS_REPLY_ARRAY where r.pointee.elements >= 2:
      let kind = text(r.pointee.element[0]!)
      switch kind {
      case "message" where r.pointee.elements == 3:
        let channel = text(r.pointee.element[1]!)
        let payload = r.pointee.element[2]!.pointee
        let bytes = UnsafeRawBufferPointer(start: payload.str, count: payload.len)
        counters.messagesIn += 1
        counters.bytesIn += bytes.count
        if channel == nodesChannel {
          driver.core.busReceived(notice: bytes, at: now)
        } else {
          driver.core.busReceived(data: bytes, at: now)
          if let delay = driver.core.cluster?.lastDelay { driver.metrics.recordBusDelay(milliseconds: delay) }
        }
      case "subscribe":
        subscriber.replied()
        let channel = text(r.pointee.element[1]!)
        if channel == nodesChannel {
          nodesSubscribed = true
          maybeUp()
        } else if channel.hasPrefix("\(prefix):node:") {
          let n = String(channel.dropFirst("\(prefix):node:".count))
          driver.core.busSubscribed(node: n, at: now)
        }
      case "unsubscribe", "pong":
        subscriber.replied()
      default:
        subscriber.replied()
      }
    default:
      subscriber.replied()
    }
  }

  /// An error reply: the bus fails, and says so in the operator's terms when it is about the
  /// password.
  private func refused(_ reply: String) {
    failed("Redis refused: \(reply)", passwordProblem: Self.passwordProblem(reply))
  }

  /// What an error reply says of the password (Redis 7's words, and Redis 5's), or nil.
  private static func passwordProblem(_ reply: String) -> String? {
    if reply.hasPrefix("NOAUTH") {
      return "Redis needs a password: give it in --redis redis://:PASSWORD@host:port"
    }
    if reply.hasPrefix("WRONGPASS") || reply.contains("invalid password") { return "Redis refused the password" }
    if reply.contains("without any password configured") || reply.contains("no password is set") {
      // Not taken as it is: whoever gave the password believes this Redis is guarded.
      return "Redis has no password set (requirepass), but --redis gives one: set it in Redis or leave it out"
    }
    return nil
  }

  private func text(_ r: UnsafeMutablePointer<redisReply>) -> String {
    guard let s = r.pointee.str else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: s, count: r.pointee.len), as: UTF8.self)
  }

  // MARK: - Up and down

  private func maybeUp() {
    guard !isUp, publisherReady, nodesSubscribed, publisher.connected, subscriber.connected else { return }
    isUp = true
    backoff = 100
    warnedUnreachable = false
    warnedPassword = false
    driver.logger.notice(
      "cluster bus connected",
      metadata: ["redis": "\(url.host):\(url.port)", "node": "\(node)", "prefix": "\(prefix)"])
    driver.core.busConnected(at: driver.now())
    driver.performActions()
  }

  /// Something went wrong with either link: both are cut and made again after the backoff.
  /// `passwordProblem` names the cause when Redis refused the password (or its absence).
  private func failed(_ why: String, passwordProblem: String? = nil) {
    let wasUp = isUp
    isUp = false
    nodesSubscribed = false
    publisherReady = false
    publisher.cut()
    subscriber.cut()
    publisher.reset()
    subscriber.reset()
    if wasUp {
      driver.logger.warning("cluster bus lost", metadata: ["why": "\(why)", "redis": "\(url.host):\(url.port)"])
      driver.core.busDisconnected(at: driver.now())
      driver.performActions()
    } else if let passwordProblem {
      // Not "not reachable": the operator has the password to fix. Once until the bus is up.
      if !warnedPassword {
        warnedPassword = true
        driver.logger.error(
          "cluster bus: \(passwordProblem); retrying", metadata: ["why": "\(why)", "redis": "\(url.host):\(url.port)"])
      }
    } else if !warnedUnreachable {
      // Once until it connects: an operator who started a node against the wrong address
      // hears of it, and a Redis down for an hour does not fill the log.
      warnedUnreachable = true
      driver.logger.warning(
        "cluster bus not reachable, retrying", metadata: ["why": "\(why)", "redis": "\(url.host):\(url.port)"])
    }
    guard let context = driver.context, !driver.finished else { return }
    counters.reconnects += 1
    reconnectTimer.schedule(context, afterMilliseconds: backoff)
    backoff = min(backoff * 2, 2000)
  }

  func reconnectFired() {
    guard !driver.finished else { return }
    connect()
  }

  // MARK: - What the core asks

  private func subscribe(_ channel: String, at now: Double) {
    subscriber.send([Array("SUBSCRIBE".utf8), Array(channel.utf8)], at: now)
  }

  func subscribe(node: String) {
    guard subscriber.connected else { return }
    subscribe(dataChannel(node), at: driver.now())
    subscriber.flush()
  }

  func unsubscribe(node: String) {
    guard subscriber.connected else { return }
    subscriber.send([Array("UNSUBSCRIBE".utf8), Array(dataChannel(node).utf8)], at: driver.now())
    subscriber.flush()
  }

  func publishNotice(_ bytes: [UInt8]) {
    guard isUp else { return }
    publisher.send([Array("PUBLISH".utf8), Array(nodesChannel.utf8), bytes], at: driver.now())
    publisher.flush()
  }

  /// Publishes come at most this often (ms): under load a loop iteration handles about one
  /// frame, and a `PUBLISH` per frame costs a send here, a receive and a send in Redis and a
  /// receive on every other node. Within the window, records wait in the outbox.
  static let batchWindow = 0.5

  /// Before the loop waits: the core's data message, if any, published (or, with the bus down
  /// or backed up, dropped: the records' numbers tell the other nodes what they missed) — or,
  /// within `batchWindow` of the last publish, left to `flushTimer`.
  func flush() {
    guard driver.core.busDataPending > 0 else { return }
    let now = driver.now()
    if now - lastPublish < Self.batchWindow {
      if !flushScheduled, let context = driver.context {
        flushScheduled = true
        flushTimer.schedule(context, afterMilliseconds: lastPublish + Self.batchWindow - now)
      }
      return
    }
    publishNow(at: now)
  }

  func flushFired() {
    flushScheduled = false
    guard !stopped else { return }
    publishNow(at: driver.now())
  }

  private func publishNow(at now: Double) {
    lastPublish = now
    guard let data = driver.core.takeBusData() else { return }
    if isUp, publisher.send([Array("PUBLISH".utf8), Array(dataChannel(node).utf8), data], at: now) {
      counters.messagesOut += 1
      counters.bytesOut += data.count
      publisher.flush()
    } else {
      counters.messagesDropped += 1
    }
  }

  /// Once a second: the heartbeat, a PING on the subscribed link, and a look at the deadlines.
  func heartbeatFired() {
    guard let context = driver.context, !driver.finished else { return }
    let now = driver.now()
    // The heartbeat is the first `.busNotice` `performActions` publishes below.
    driver.core.busHeartbeat(at: now)
    if subscriber.connected {
      subscriber.send([Array("PING".utf8)], at: now)
      subscriber.flush()
    }
    driver.performActions()
    if publisher.isStalled(at: now) || subscriber.isStalled(at: now) {
      failed("Redis did not answer within \(Int(RedisLink.replyTimeout)) ms")
    }
    heartbeatTimer.schedule(context, afterMilliseconds: 1000)
  }

  /// A clean shutdown: what is left, then goodbye.
  func goodbye() {
    publishNow(at: driver.now())
    if let bye = driver.core.busGoodbye { publishNotice(bye) }
  }
}

/// What the bus driver counts for `/metrics` (the core counts the records).
struct BusCounters {
  var messagesIn = 0
  var bytesIn = 0
  var messagesOut = 0
  var bytesOut = 0
  /// Data messages not published: the bus was down or backed up.
  var messagesDropped = 0
  var reconnects = 0
}

func redisReconnectFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<RedisBus>.fromOpaque(owner).takeUnretainedValue().reconnectFired()
}

func redisFlushFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<RedisBus>.fromOpaque(owner).takeUnretainedValue().flushFired()
}

func redisHeartbeatFired(_ owner: UnsafeMutableRawPointer?) {
  guard let owner else { return }
  Unmanaged<RedisBus>.fromOpaque(owner).takeUnretainedValue().heartbeatFired()
}

import CLibWebSockets
import Dispatch
import Logging
import RelayCore
import Synchronization
import TouchProtocol

/// The TouchRelay server: a libwebsockets context serviced by one thread of its own.
/// `start` returns once it listens; `requestStop` may be called from any thread (it reaches
/// the service thread only through `lws_cancel_service`); `wait` blocks until it has stopped.
public final class RelayServer: Sendable {
  public enum StartError: Error, CustomStringConvertible {
    case cannotListen(host: String, port: Int, why: String)
    case badConfiguration(String)

    public var description: String {
      switch self {
      case .cannotListen(let host, let port, let why):
        return "cannot listen on \(host.contains(":" as Character) ? "[\(host)]" : host):\(port): \(why)"
      case .badConfiguration(let why):
        return why
      }
    }
  }

  public let configuration: RelayConfiguration
  private let logger: Logger
  private let stopRequested = Atomic<Bool>(false)
  private let reloadRequested = Atomic<Bool>(false)
  /// The context as an address, guarded so `lws_cancel_service` never races its destruction.
  private let contextAddress = Mutex<UInt>(0)
  private let listening = Mutex<Int?>(nil)
  private let address = Mutex<ListenAddress?>(nil)
  private let initialPolicy = Mutex(AccessPolicy())
  /// With `--redis`: where the cluster's Redis is, resolved at start.
  private let redisTargetBox = Mutex<(url: RedisURL, address: String)?>(nil)
  private var redisTarget: (url: RedisURL, address: String)? {
    get { redisTargetBox.withLock { $0 } }
    set { redisTargetBox.withLock { $0 = newValue } }
  }
  private let finished = DispatchSemaphore(value: 0)
  /// `--tuio-udp`'s socket, bound in `start`, handed to the service thread.
  private let tuioSocket = Mutex<TUIOSocket?>(nil)
  /// The descriptors claimed in `start` (see `DescriptorBudget`).
  private let descriptors = Mutex<DescriptorBudget?>(nil)

  public init(configuration: RelayConfiguration, logger: Logger = Logger(label: "touch-relay")) {
    self.configuration = configuration
    // Every line names the node, so the logs of several read apart once gathered.
    var named = logger
    named[metadataKey: "node"] = "\(configuration.nodeID)"
    self.logger = named
  }

  /// The port it listens on, once started.
  public var port: Int? { listening.withLock { $0 } }

  /// Once started: the WebSocket connections it takes before answering 503, `--max-connections`
  /// or fewer when the process's descriptors allow fewer (see `DescriptorBudget`).
  public var maxConnections: Int? {
    descriptors.withLock { $0 }.map { min(configuration.limits.maxConnections, $0.connections) }
  }

  /// The UDP port TUIO senders send to, once started with `--tuio-udp`.
  public var tuioPort: Int? { tuioSocket.withLock { $0?.port } }

  /// Once started: whether only this machine can connect (`--host` a loopback address or
  /// interface, or a name that resolved to one).
  public var listensOnLoopbackOnly: Bool { address.withLock { $0?.isLoopback ?? false } }

  /// Once started: the base of its URLs, `ws://HOST:PORT` (`wss://` with TLS), with a host a
  /// client can use (see `ListenAddress.urlHost`).
  public var url: String? {
    guard let port, let a = address.withLock({ $0 }) else { return nil }
    return "\(configuration.tlsCertificate == nil ? "ws" : "wss")://\(a.urlHost(given: configuration.host)):\(port)"
  }

  /// Once started on every interface (`0.0.0.0`, `::`): the addresses other machines can
  /// reach it on, with their interfaces (see `ListenAddress.networkHosts`). Empty otherwise.
  public var networkHosts: [(interface: String, host: String)] {
    address.withLock { $0 }?.networkHosts() ?? []
  }

  /// Creates the context on a new service thread and returns the port it listens on.
  @discardableResult
  public func start() throws -> Int {
    try configuration.validate()
    // Checked here so a bad file is a clear start-up error rather than a silent open door.
    var policy = AccessPolicy()
    policy.sourceToken(configuration.sourceToken)
    policy.observerToken(configuration.observerToken)
    policy.allowedOrigins = configuration.allowedOrigins.map(Set.init)
    if let path = configuration.tokensFile {
      do {
        policy.sessions = try TokensFile.loadSessionTokens(path: path)
      } catch {
        throw StartError.badConfiguration("\(error)")
      }
    }
    do {
      policy.signedTokens = try JWTKeyFiles.verifier(for: configuration)
    } catch {
      throw StartError.badConfiguration("\(error)")
    }
    let listenAddress: ListenAddress
    do {
      listenAddress = try ListenAddress.resolve(configuration.host)
    } catch {
      throw StartError.badConfiguration("\(error)")
    }
    var redis: (url: RedisURL, address: String)?
    if let text = configuration.redisURL {
      do {
        let url = try RedisURL(text)
        redis = (url, try url.resolvedAddress())
      } catch {
        throw StartError.badConfiguration("--redis: \(error)")
      }
    }
    redisTarget = redis
    address.withLock { $0 = listenAddress }
    initialPolicy.withLock { $0 = policy }
    // Bound here, so a port taken is a start-up error that says why.
    let shared =
      configuration.reusePort
      ? try SharedListener.open(listenAddress, host: configuration.host, port: configuration.port) : nil
    if let spec = configuration.tuioUDP {
      do {
        let socket = try TUIOSocket.bind(spec, defaultHost: configuration.host)
        tuioSocket.withLock { $0 = socket }
      } catch {
        throw StartError.badConfiguration("\(error)")
      }
    }
    if !configuration.tuioOut.isEmpty {
      // Checked here for a clear start-up error; resolved again on the service thread, which
      // owns the sockets.
      do {
        _ = try TUIOOutput(configuration.tuioOut)
      } catch {
        throw StartError.badConfiguration("\(error)")
      }
    }
    // Before the context, which sizes its descriptor table from the limit.
    let budget = DescriptorBudget.claim(recording: configuration.recordDirectory != nil)
    descriptors.withLock { $0 = budget }
    // Every receive buffer is a connection's, so one per descriptor is room enough.
    ReceiveBuffers.install(
      slots: min(budget.limit, ReceiveBuffers.mostSlots),
      bytes: ReceiveBuffers.requestSize(rxBufferSize: ContextResources.rxBufferSize))
    if budget.limit > budget.previousLimit {
      logger.info(
        "raised the descriptor limit", metadata: ["from": "\(budget.previousLimit)", "to": "\(budget.limit)"])
    }
    if configuration.limits.maxConnections > budget.connections
      && configuration.limits.maxConnections != Limits().maxConnections
    {
      logger.warning(
        "--max-connections is more than this process's descriptors allow; HTTP 503 beyond what they do",
        metadata: [
          "max-connections": "\(configuration.limits.maxConnections)", "allowed": "\(budget.connections)",
          "descriptor-limit": "\(budget.limit)",
        ])
    }
    let ready = DispatchSemaphore(value: 0)
    ServiceThread.start(name: "lws-service") { [self] in
      self.serviceThread(ready: ready, address: listenAddress, shared: shared)
    }
    ready.wait()
    guard let port = port else {
      finished.wait()
      let why =
        (shared != nil ? "libwebsockets could not adopt the shared listening socket (see its log line above)" : nil)
        ?? listenAddress.bindError(port: configuration.port)
        ?? (configuration.tlsCertificate != nil
          ? "libwebsockets could not set up TLS with --cert and --key (are both PEM files, and is the key the certificate's?)"
          : "libwebsockets could not create the listener (its log line above says why)")
      throw StartError.cannotListen(host: configuration.host, port: configuration.port, why: why)
    }
    return port
  }

  /// Asks the service thread to shut down: drain observers, close with 1001, exit.
  public func requestStop() {
    stopRequested.store(true, ordering: .releasing)
    contextAddress.withLock { address in
      if let ctx = OpaquePointer(bitPattern: address) { lws_cancel_service(ctx) }
    }
  }

  /// Asks the service thread to re-read the tokens file and the JWT key files (SIGHUP).
  public func requestReload() {
    reloadRequested.store(true, ordering: .releasing)
    contextAddress.withLock { address in
      if let ctx = OpaquePointer(bitPattern: address) { lws_cancel_service(ctx) }
    }
  }

  func takeReloadRequest() -> Bool {
    reloadRequested.exchange(false, ordering: .acquiringAndReleasing)
  }

  /// Blocks until the service thread has finished.
  public func wait() {
    finished.wait()
    finished.signal()
  }

  public func stop() {
    requestStop()
    wait()
  }

  var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

  // MARK: - The service thread

  private func serviceThread(ready: DispatchSemaphore, address: ListenAddress, shared: SharedListener?) {
    let resources = ContextResources(configuration: configuration, address: address)
    // Adopted by lws, which closes it with the context; closed here if it never was.
    var sharedAdopted = false
    defer {
      // Last: the relay (and every timer on the loop) is gone by now.
      resources.release()
      if let shared, !sharedAdopted { close(shared.fd) }
      finished.signal()
    }
    serve(resources, shared: shared, adopted: &sharedAdopted, ready: ready)
  }

  private func serve(
    _ resources: ContextResources, shared: SharedListener?, adopted: inout Bool, ready: DispatchSemaphore
  ) {
    var settings = configuration
    let budget = descriptors.withLock { $0 }
    if let allowed = maxConnections { settings.limits.maxConnections = allowed }
    let driver = LWSDriver(
      config: settings, access: initialPolicy.withLock { $0 }, logger: logger, eventLoop: resources.eventLoop)
    var info = lws_context_creation_info()
    // `--reuse-port`: no listener of lws' own; connections come from `SharedListener`.
    info.port = shared == nil ? Int32(configuration.port) : CONTEXT_PORT_NO_LISTEN_SERVER
    info.iface = UnsafePointer(resources.iface)
    info.protocols = UnsafePointer(resources.protocols)
    if configuration.compression { info.extensions = UnsafePointer(resources.extensions) }
    info.retry_and_idle_policy = UnsafePointer(resources.retryPolicy)
    // UTF-8 is checked by the driver (see `receive` in LWSCallback): lws' own check hangs up
    // without a close frame on a close reason that is not UTF-8.
    info.options = 0
    // The vhosts are made below: lws reads IPv6's switch from the context's options as well as
    // each vhost's, and only the listener's vhost has it off.
    info.options |= UInt64(LWS_SERVER_OPTION_EXPLICIT_VHOSTS)
    // Without it a listener lws cannot open is parked for later, and the context starts
    // listening nowhere.
    info.options |= UInt64(LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND)
    if resources.certificate != nil {
      info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
      info.ssl_cert_filepath = UnsafePointer(resources.certificate)
      info.ssl_private_key_filepath = UnsafePointer(resources.key)
      // HTTP/1.1 only: our plain HTTP answers are written as HTTP/1.1, and WebSockets over
      // HTTP/2 are not offered.
      info.alpn = UnsafePointer(resources.alpn)
    }
    if configuration.eventLoop == .libev {
      guard resources.eventLoop != nil else {
        logger.error("libev could not create an epoll loop")
        ready.signal()
        return
      }
      info.options |= UInt64(LWS_SERVER_OPTION_LIBEV)
      info.foreign_loops = UnsafeMutablePointer(resources.foreignLoops)
    }
    info.user = Unmanaged.passUnretained(driver).toOpaque()
    info.count_threads = 1
    // Each open connection is one fd; let lws size its table for the process limit.
    info.fd_limit_per_thread = 0
    lws_set_log_level(configuration.libwebsocketsLogLevel, nil)
    guard let context = lws_create_context(&info) else {
      ready.signal()
      return
    }
    // Before anything else is on the loop, so a failure here has only the context to undo.
    // The listener's vhost ("default"), on the context's own settings, TLS included.
    var listenerInfo = info
    // See `ListenAddress`.
    if !resources.ipv6 { listenerInfo.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6) }
    // The raw client connections' vhost (`RawSocket.connect`): no listener, IPv6 on, only the
    // raw protocol, and none of the listener's TLS (Redis is plain TCP). Its connections are
    // on the context's loop, libev's included.
    var clientInfo = lws_context_creation_info()
    clientInfo.port = CONTEXT_PORT_NO_LISTEN
    clientInfo.vhost_name = UnsafePointer(resources.clientVhostName)
    clientInfo.protocols = UnsafePointer(resources.clientProtocols)
    guard let vhost = lws_create_vhost(context, &listenerInfo), lws_create_vhost(context, &clientInfo) != nil
    else {
      lws_context_destroy(context)
      ready.signal()
      return
    }
    if let shared {
      var descriptor = lws_sock_file_fd_type()
      descriptor.filefd = shared.fd
      guard
        let listenerWSI = lws_adopt_descriptor_vhost(
          vhost, LWS_ADOPT_RAW_FILE_DESC, descriptor, SharedListener.protocolName, nil)
      else {
        // lws closed the socket if it tried.
        adopted = true
        lws_context_destroy(context)
        ready.signal()
        return
      }
      adopted = true
      driver.vhost = vhost
      driver.sharedListener = shared.fd
      driver.sharedListenerWSI = listenerWSI
      driver.takeSpareDescriptor()
    }
    driver.context = context
    driver.server = self
    if let budget { driver.descriptorCeiling = Int32(clamping: budget.ceiling) }
    if let redis = redisTarget {
      let bus = RedisBus(
        driver: driver, url: redis.url, address: redis.address, prefix: configuration.effectiveRedisPrefix,
        node: driver.core.cluster?.node ?? configuration.nodeID)
      driver.bus = bus
      driver.metrics.bus = bus
      bus.start()
    }
    if let loop = resources.eventLoop {
      // The loop's run call returns only when broken; `finished` is set on this thread.
      driver.onFinished = { tr_ev_break(loop) }
      driver.heartbeat()
    }
    if let socket = tuioSocket.withLock({ $0 }) {
      let listener = TUIOListener(socket: socket, configuration: configuration)
      driver.tuio = listener
      driver.metrics.tuioCounters = { [unowned listener] in listener.input.counters }
      guard listener.adopt(vhost: vhost, driver: driver) else {
        logger.error("libwebsockets could not adopt the TUIO socket")
        lws_context_destroy(context)
        ready.signal()
        return
      }
      logger.info("TUIO listening", metadata: ["udp": "\(socket.port)", "session": "\(configuration.tuioSession)"])
    }
    if !configuration.tuioOut.isEmpty, let output = try? TUIOOutput(configuration.tuioOut) {
      driver.tuioOut = output
      driver.metrics.tuioOutCounts = { [unowned output] in (output.sent, output.failed) }
      output.start(driver.core, at: driver.now())
      driver.performActions()
    }
    let port = shared?.port ?? Int(lws_get_vhost_listen_port(vhost))
    contextAddress.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(context))) }
    listening.withLock { $0 = port }
    ready.signal()
    // A stop requested before the context existed found nothing to cancel.
    if isStopRequested {
      driver.checkStop()
      driver.performActions()
    }
    while !driver.finished {
      if lws_service(context, 0) < 0 { break }
      // lws' poll loop runs one wait per call; libev's runs until broken, and flushes the
      // cluster bus itself (`LWSDriver.loopHook`). Both advance the core's time after each
      // event (`LWSDriver.performActions`).
      if resources.eventLoop == nil { driver.beforeWait() }
    }
    contextAddress.withLock { $0 = 0 }
    // The driver's timers and loop hook go before the scheduler they are linked into; the
    // peers leave the core as lws closes their connections in the destroy.
    driver.heartbeatTimer.cancel()
    driver.wakeTimer.cancel()
    driver.loopHook?.stop()
    driver.tuio?.stop()
    driver.tuioOut?.stop()
    lws_context_destroy(context)
    driver.context = nil
    logger.info("stopped")
  }
}

/// C memory libwebsockets reads for the context's lifetime.
private final class ContextResources {
  /// The largest piece of a message lws hands over at once (larger ones come in pieces, which
  /// `LWSCallback` joins): 16 KiB with lws' `LWS_PRE` and zlib's 4 bytes, so that each buffer
  /// is exactly four pages of `ReceiveBuffers`.
  static let rxBufferSize = 16 * 1024 - Int(tr_lws_pre()) - 4
  let iface: UnsafeMutablePointer<CChar>?
  let ipv6: Bool
  let protocolName: UnsafeMutablePointer<CChar>
  /// The protocol of every `RawSocket` (the cluster bus's Redis links, the TUIO socket).
  let rawProtocolName = strdup(RawSocket.protocolName)!
  let listenerName = strdup(SharedListener.protocolName)!
  let protocols: UnsafeMutablePointer<lws_protocols>
  /// The raw client connections' vhost (`RawSocket.clientVhostName`) and its protocols: the
  /// raw one alone.
  let clientVhostName = strdup(RawSocket.clientVhostName)!
  let clientProtocols: UnsafeMutablePointer<lws_protocols>
  let extensionName: UnsafeMutablePointer<CChar>
  let extensionOffer: UnsafeMutablePointer<CChar>
  let extensions: UnsafeMutablePointer<lws_extension>
  let retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>
  /// The libev loop we own with --event-loop libev, and the one-entry array lws reads it from.
  let eventLoop: UnsafeMutableRawPointer?
  let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>

  let alpn = strdup("http/1.1")!
  let certificate: UnsafeMutablePointer<CChar>?
  let key: UnsafeMutablePointer<CChar>?

  init(configuration c: RelayConfiguration, address: ListenAddress) {
    certificate = c.tlsCertificate.map { strdup($0) }
    key = c.tlsKey.map { strdup($0) }
    eventLoop = c.eventLoop == .libev ? tr_ev_loop_new() : nil
    foreignLoops = .allocate(capacity: 1)
    foreignLoops.initialize(to: eventLoop)
    iface = address.iface.map { strdup($0) }
    ipv6 = address.ipv6
    protocolName = strdup(TouchProtocol.protocolName)
    protocols = .allocate(capacity: 4)
    // The first protocol also serves plain HTTP and peers that ask for no subprotocol.
    var p = lws_protocols()
    p.name = UnsafePointer(protocolName)
    p.callback = relayCallback
    p.per_session_data_size = 0
    p.rx_buffer_size = Self.rxBufferSize
    protocols.initialize(to: p)
    // Raw sockets (`RawSocket`): the cluster bus's Redis connections read into this buffer.
    var raw = lws_protocols()
    raw.name = UnsafePointer(rawProtocolName)
    raw.callback = rawSocketCallback
    raw.rx_buffer_size = 64 * 1024
    (protocols + 1).initialize(to: raw)
    clientProtocols = .allocate(capacity: 2)
    clientProtocols.initialize(to: raw)
    (clientProtocols + 1).initialize(to: lws_protocols())
    var listener = lws_protocols()
    listener.name = UnsafePointer(listenerName)
    listener.callback = listenerCallback
    // Listed only with --reuse-port (the list ends at the first empty entry).
    (protocols + 2).initialize(to: c.reusePort ? listener : lws_protocols())
    (protocols + 3).initialize(to: lws_protocols())
    extensionName = strdup("permessage-deflate")
    extensionOffer = strdup("permessage-deflate; client_no_context_takeover; client_max_window_bits")
    extensions = .allocate(capacity: 2)
    var e = lws_extension()
    e.name = UnsafePointer(extensionName)
    e.callback = lws_extension_callback_pm_deflate
    e.client_offer = UnsafePointer(extensionOffer)
    extensions.initialize(to: e)
    (extensions + 1).initialize(to: lws_extension())
    retryPolicy = .allocate(capacity: 1)
    var r = lws_retry_bo_t()
    r.secs_since_valid_ping = c.pingInterval
    r.secs_since_valid_hangup = c.idleTimeout
    retryPolicy.initialize(to: r)
  }

  func release() {
    free(iface)
    free(alpn)
    free(certificate)
    free(key)
    free(protocolName)
    free(rawProtocolName)
    free(listenerName)
    free(clientVhostName)
    free(extensionName)
    free(extensionOffer)
    protocols.deallocate()
    clientProtocols.deallocate()
    extensions.deallocate()
    retryPolicy.deallocate()
    foreignLoops.deallocate()
    // After lws_context_destroy: lws has stopped all its watchers on it.
    if let eventLoop { tr_ev_loop_destroy(eventLoop) }
  }
}

extension RelayConfiguration {
  /// libwebsockets' own log lines: errors always, more only when debugging.
  var libwebsocketsLogLevel: Int32 {
    verboseLibwebsockets ? LLL_ERR | LLL_WARN | LLL_NOTICE : LLL_ERR
  }
}

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TouchProtocol
import TouchRelayClient

/// A source: streams a device's touches to a session. It says hello, sends samples (one or
/// several per message, as the server allows), and after a drop reconnects by itself,
/// presenting `resume` within the window so observers see `rejoined` and the id stays.
/// `seq` is the library's and keeps increasing across reconnects; `t` never goes back.
/// Samples wait in a bounded `SampleBuffer` while the network is slow or gone.
/// Every method may be called from any thread.
public final class RelaySource: Sendable {
  public struct Configuration: Sendable {
    /// Samples held before moves start replacing each other (see `SampleBuffer`).
    public var bufferCapacity = 256
    /// The server's resume window (protocol §4): after a drop longer than this the source
    /// comes back as a new one.
    public var resumeWindow: Duration = .seconds(10)
    public var reconnectDelay = ReconnectDelay()
    /// The most samples put in one message; the server's `maxFramesPerMessage` caps it.
    public var maxSamplesPerMessage = 64
    /// Bytes NIO may hold above the kernel's buffer before samples wait in `SampleBuffer`,
    /// where moves can merge: small, so a slow network delays little.
    public var writeBufferHighWater = 16 * 1024
    public var welcomeTimeout: Duration = .seconds(5)
    public var websocket = WebSocketConfiguration()

    public init() {}
  }

  struct State {
    var hello: Hello
    var buffer: SampleBuffer
    var seq: Int64 = 0
    var lastT = -Double.infinity
    var connection: WebSocketConnection?
    var generation = 0
    var welcomed = false
    var fingers = FingersOnConnection()
    var perMessage = 1
    var sourceID: String?
    var lostAt: ContinuousClock.Instant?
    var reconnecting = false
    var closed = false
    var pumpScheduled = false
    var reconnects = 0
  }

  let connector: RelayConnector
  let configuration: Configuration
  let loop: any EventLoop
  let state: NIOLockedValueBox<State>
  private let continuation: AsyncStream<ObserverMessage>.Continuation
  /// What the server tells this source (`welcome` after each connection, `error`, `dropped`)
  /// and `disconnected` when the connection is lost. Buffered: read it or not.
  public let events: AsyncStream<ObserverMessage>

  /// `url` is the source URL (`ws://host:port/v1/source/SESSION`).
  public init(
    url: String, hello: Hello, token: TokenProvider? = nil, configuration: Configuration = .init(),
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) throws {
    var websocket = configuration.websocket
    websocket.subprotocols = [TouchProtocol.protocolName]
    connector = RelayConnector(url: try ClientURL(url), websocket: websocket, token: token)
    self.configuration = configuration
    loop = group.next()
    state = NIOLockedValueBox(State(hello: hello, buffer: SampleBuffer(capacity: configuration.bufferCapacity)))
    (events, continuation) = AsyncStream.makeStream(of: ObserverMessage.self, bufferingPolicy: .bufferingNewest(1024))
  }

  /// The id the server gave this source (the same after a resume).
  public var sourceID: String? { state.withLockedValue { $0.sourceID } }
  /// Samples replaced by a later one while the buffer was full (see `SampleBuffer`).
  public var mergedSamples: Int { state.withLockedValue { $0.buffer.merged } }
  /// Samples waiting to be sent.
  public var pendingSamples: Int { state.withLockedValue { $0.buffer.count } }
  /// Connections opened after the first.
  public var reconnects: Int { state.withLockedValue { $0.reconnects } }
  /// True while a connection is open and welcomed.
  public var isConnected: Bool { state.withLockedValue { $0.welcomed } }

  // MARK: Connecting

  /// Connects, says hello and waits for the welcome. Throws when this first attempt fails;
  /// later drops are repaired in the background.
  @discardableResult
  public func start() async throws -> Welcome {
    try await connect(resume: nil)
  }

  /// Says hello again with a new device, regions or config (rotation, resize).
  public func update(hello: Hello) {
    let connection: WebSocketConnection? = state.withLockedValue { s in
      s.hello = hello
      return s.welcomed ? s.connection : nil
    }
    if let connection {
      connection.sendText(ByteBuffer(string: ClientMessageEncoder.hello(hello)))
    }
  }

  /// Closes with 1000 (the source has left: observers see `left` at once) and stops reconnecting.
  public func close() async {
    let connection: WebSocketConnection? = state.withLockedValue { s in
      s.closed = true
      return s.connection
    }
    await connection?.close(code: 1000)
    continuation.finish()
  }

  private func connect(resume: String?) async throws -> Welcome {
    let generation = state.withLockedValue { s in
      s.generation += 1
      return s.generation
    }
    let welcome = loop.makePromise(of: Welcome.self)
    let settled = NIOLockedValueBox(false)
    let connection: WebSocketConnection
    do {
      connection = try await connector.connect(on: loop) { [weak self] event in
        self?.handle(event, generation: generation, welcome: welcome, settled: settled)
      }
    } catch {
      welcome.fail(error)
      throw error
    }
    let watcher = WritabilityWatcher { [weak self] in self?.pump() }
    let mark = configuration.writeBufferHighWater
    try? await connection.channel.setOption(
      .writeBufferWaterMark, value: .init(low: mark / 2, high: mark)
    ).get()
    try? await connection.channel.pipeline.addHandler(watcher).get()
    var hello = state.withLockedValue { s in
      s.connection = connection
      return s.hello
    }
    hello.resume = resume
    connection.sendText(ByteBuffer(string: ClientMessageEncoder.hello(hello)))
    let timer = loop.scheduleTask(in: TimeAmount(configuration.welcomeTimeout)) {
      if settled.withLockedValue({ done in
        defer { done = true }
        return !done
      }) {
        welcome.fail(WebSocketClientError.timeout("waiting for the welcome"))
        connection.channel.close(promise: nil)
      }
    }
    defer { timer.cancel() }
    do {
      return try await welcome.futureResult.get()
    } catch {
      await connection.close(timeout: .milliseconds(200))
      throw error
    }
  }

  private func handle(
    _ event: WebSocketEvent, generation: Int, welcome: EventLoopPromise<Welcome>,
    settled: NIOLockedValueBox<Bool>
  ) {
    switch event {
    case .text(let buffer):
      guard let message = try? ObserverMessage.decode(String(buffer: buffer)) else { return }
      if case .welcome(let w) = message {
        // A welcome after the wait gave up belongs to a connection already being closed.
        guard
          settled.withLockedValue({ done in
            defer { done = true }
            return !done
          })
        else { return }
        state.withLockedValue { s in
          guard s.generation == generation else { return }
          s.welcomed = true
          s.sourceID = w.source
          s.lostAt = nil
          s.fingers = FingersOnConnection()
          s.perMessage = min(configuration.maxSamplesPerMessage, w.maxFramesPerMessage)
          if s.reconnecting {
            s.reconnecting = false
            s.reconnects += 1
          }
        }
        welcome.succeed(w)
        pump()
      }
      continuation.yield(message)
    case .closed(let code, let reason):
      if settled.withLockedValue({ done in
        defer { done = true }
        return !done
      }) {
        welcome.fail(WebSocketClientError.closed(code: code, reason: reason))
      }
      let reconnect: Bool = state.withLockedValue { s in
        guard s.generation == generation else { return false }
        let wasWelcomed = s.welcomed
        s.connection = nil
        s.welcomed = false
        if s.closed || !wasWelcomed || s.reconnecting { return false }
        if s.lostAt == nil { s.lostAt = .now }
        s.reconnecting = true
        return true
      }
      if reconnect {
        continuation.yield(.disconnected(code: code, reason: reason))
        Task { await self.reconnectLoop() }
      }
    case .binary, .ping, .pong:
      break
    }
  }

  /// Tries again until a connection is welcomed or the source is closed; presents `resume`
  /// while the drop is younger than the window.
  private func reconnectLoop() async {
    var attempt = 0
    while true {
      try? await Task.sleep(for: configuration.reconnectDelay.delay(attempt: attempt))
      attempt += 1
      let resume: String?? = state.withLockedValue { s in
        if s.closed {
          s.reconnecting = false
          return .none
        }
        let young = s.lostAt.map { ContinuousClock.now - $0 < configuration.resumeWindow } ?? false
        return .some(young ? s.sourceID : nil)
      }
      guard let resume else { return }
      do {
        _ = try await connect(resume: resume)
        return
      } catch {
        if RelayConnector.isFinal(error) {
          state.withLockedValue { $0.reconnecting = false }
          continuation.yield(.error(RelayError(code: "connect_failed", message: "\(error)")))
          return
        }
      }
    }
  }

  // MARK: Sending

  /// One sample: every finger down now.
  public func send(_ touches: [TouchPoint], t: Double) {
    send([Sample(t: t, touches: touches)])
  }

  /// Several samples (say the coalesced touches of one event), sent together in as few
  /// messages as the server allows.
  public func send(_ samples: [Sample]) {
    let schedule: Bool = state.withLockedValue { s in
      for sample in samples {
        s.seq += 1
        s.lastT = max(s.lastT, sample.t)
        s.buffer.append(Frame(seq: s.seq, t: s.lastT, touches: sample.touches))
      }
      if s.pumpScheduled || !s.welcomed { return false }
      s.pumpScheduled = true
      return true
    }
    guard schedule else { return }
    // On the loop already (an app driving the source from its loop): no task hop.
    if loop.inEventLoop { pump() } else { loop.execute { self.pump() } }
  }

  /// Hands waiting samples to the socket while it takes them; on the loop only. Each write
  /// happens outside the lock: a failing write closes the channel at once, and the close
  /// comes back here through `handle`.
  private func pump() {
    var wrote: WebSocketConnection?
    while true {
      let next: (WebSocketConnection, ByteBuffer)? = state.withLockedValue { s in
        s.pumpScheduled = false
        guard s.welcomed, let connection = s.connection, !s.buffer.isEmpty, connection.channel.isWritable
        else { return nil }
        let batch = s.buffer.take(s.perMessage).map { s.fingers.prepare($0) }
        var bytes = connection.channel.allocator.buffer(capacity: 128 * batch.count)
        if batch.count == 1 {
          ClientMessageEncoder.frame(batch[0], into: &bytes)
        } else {
          ClientMessageEncoder.frames(batch, into: &bytes)
        }
        return (connection, bytes)
      }
      guard let (connection, bytes) = next else { break }
      connection.sendText(bytes, flush: false)
      wrote = connection
    }
    wrote?.flush()
  }
}

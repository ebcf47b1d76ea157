import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TouchProtocol
import TouchRelayClient

/// An observer: the messages of a session, typed, as an `AsyncSequence` (one consumer).
/// After a drop it reconnects by itself: the sequence gets `disconnected`, then the new
/// connection's `welcome`, whose snapshot replaces `session`. Nothing is hidden: the server's
/// `dropped` notices come through, and a consumer that falls behind is not buffered without
/// end: past `Configuration.highWater` unread messages the socket is no longer read, so the
/// server's queue fills and the server drops and says so (protocol §5).
public final class RelayObserver: AsyncSequence, Sendable {
  public typealias Element = ObserverMessage

  public struct Configuration: Sendable {
    public var reconnectDelay = ReconnectDelay()
    /// Unread messages at which reading stops, and at which it starts again.
    public var highWater = 4096
    public var lowWater = 1024
    public var websocket = WebSocketConfiguration()

    public init() {}
  }

  struct State {
    var session = SessionState()
    var connection: WebSocketConnection?
    var generation = 0
    var unread = 0
    var paused = false
    var closed = false
    var reconnects = 0
    /// Set when a drop starts the reconnecting; the next welcome counts the reconnect.
    var reconnecting = false
  }

  let connector: RelayConnector
  let configuration: Configuration
  let loop: any EventLoop
  let state = NIOLockedValueBox(State())
  private let stream: AsyncThrowingStream<ObserverMessage, any Error>
  private let continuation: AsyncThrowingStream<ObserverMessage, any Error>.Continuation

  /// `url` is the observe URL (`ws://host:port/v1/observe/SESSION`); `options` are added to
  /// its query.
  public init(
    url: String, options: ObserverOptions = .init(), token: TokenProvider? = nil,
    configuration: Configuration = .init(), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) throws {
    var target = try ClientURL(url)
    let query = options.query
    if !query.isEmpty { target.target += (target.target.contains("?") ? "&" : "?") + query }
    var websocket = configuration.websocket
    websocket.subprotocols = [TouchProtocol.protocolName]
    connector = RelayConnector(url: target, websocket: websocket, token: token)
    self.configuration = configuration
    loop = group.next()
    (stream, continuation) = AsyncThrowingStream.makeStream(of: ObserverMessage.self)
  }

  /// The sources present and their latest scene states, as of the messages received so far
  /// (not only those read from the sequence).
  public var session: SessionState { state.withLockedValue { $0.session } }
  /// Connections welcomed after the first.
  public var reconnects: Int { state.withLockedValue { $0.reconnects } }

  /// Connects and returns once the socket is open; the `welcome` is the sequence's first
  /// message. Throws when this first attempt fails; later drops are repaired in the background.
  public func start() async throws {
    try await connect()
  }

  /// Closes (1000) and ends the sequence.
  public func close() async {
    let connection: WebSocketConnection? = state.withLockedValue { s in
      s.closed = true
      return s.connection
    }
    await connection?.close(code: 1000)
    continuation.finish()
  }

  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncThrowingStream<ObserverMessage, any Error>.AsyncIterator
    let observer: RelayObserver

    public mutating func next() async throws -> ObserverMessage? {
      let message = try await base.next()
      if message != nil { observer.consumed() }
      return message
    }
  }

  public func makeAsyncIterator() -> Iterator {
    Iterator(base: stream.makeAsyncIterator(), observer: self)
  }

  private func connect() async throws {
    let generation = state.withLockedValue { s in
      s.generation += 1
      return s.generation
    }
    let connection = try await connector.connect(on: loop) { [weak self] event in
      self?.handle(event, generation: generation)
    }
    let stale = state.withLockedValue { s in
      guard s.generation == generation, !s.closed else { return true }
      s.connection = connection
      s.paused = false
      return false
    }
    if stale { await connection.close() }
  }

  private func handle(_ event: WebSocketEvent, generation: Int) {
    switch event {
    case .text(let buffer):
      let message: ObserverMessage
      do {
        message = try ObserverMessage.decode(String(buffer: buffer))
      } catch {
        // Said, not skipped: a message this library cannot read is still a message missed.
        message = .error(RelayError(code: "unreadable", message: error.description))
      }
      let pause: WebSocketConnection? = state.withLockedValue { s in
        if case .welcome = message, s.reconnecting {
          s.reconnecting = false
          s.reconnects += 1
        }
        s.session.apply(message)
        s.unread += 1
        guard s.unread >= configuration.highWater, !s.paused, let c = s.connection else { return nil }
        s.paused = true
        return c
      }
      continuation.yield(message)
      pause?.channel.setOption(.autoRead, value: false).whenComplete { _ in }
    case .closed(let code, let reason):
      let reconnect: Bool = state.withLockedValue { s in
        guard s.generation == generation, !s.closed else { return false }
        s.connection = nil
        s.reconnecting = true
        return true
      }
      guard reconnect else { return }
      state.withLockedValue { $0.unread += 1 }
      continuation.yield(.disconnected(code: code, reason: reason))
      Task { await self.reconnectLoop() }
    case .binary, .ping, .pong:
      break
    }
  }

  private func consumed() {
    let resume: WebSocketConnection? = state.withLockedValue { s in
      s.unread -= 1
      guard s.paused, s.unread <= configuration.lowWater else { return nil }
      s.paused = false
      return s.connection
    }
    resume?.channel.setOption(.autoRead, value: true).whenComplete { _ in }
  }

  private func reconnectLoop() async {
    var attempt = 0
    while !state.withLockedValue({ $0.closed }) {
      try? await Task.sleep(for: configuration.reconnectDelay.delay(attempt: attempt))
      attempt += 1
      do {
        try await connect()
        return
      } catch {
        if RelayConnector.isFinal(error) {
          continuation.finish(throwing: error)
          return
        }
      }
    }
  }
}

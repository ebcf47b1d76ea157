import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import TouchProtocol

/// One client WebSocket connection (SwiftNIO). Two ways to receive:
/// - `connect(_:configuration:group:)`: messages queue up for `next(timeout:)` (tests);
/// - `connect(_:configuration:group:onEvent:)`: every message goes to a callback on the
///   channel's event loop, with no task hop or String per message (touch-load).
/// Sending works the same in both; all methods may be called from any thread.
public final class WebSocketConnection: Sendable {
  public let channel: any Channel
  public let url: ClientURL
  /// The server's 101 response (status and headers).
  public let upgradeResponse: HTTPResponse
  let queue: InboundQueue?
  let state: ConnectionState

  init(
    channel: any Channel, url: ClientURL, upgradeResponse: HTTPResponse, queue: InboundQueue?,
    state: ConnectionState
  ) {
    self.channel = channel
    self.url = url
    self.upgradeResponse = upgradeResponse
    self.queue = queue
    self.state = state
  }

  public var eventLoop: any EventLoop { channel.eventLoop }
  /// The subprotocol the server chose, if any.
  public var negotiatedProtocol: String? { upgradeResponse.header("Sec-WebSocket-Protocol") }
  /// The code and reason of the server's close frame, once one arrived.
  public var serverClose: (code: UInt16, reason: String)? {
    state.values.withLock { $0.serverClose }
  }
  public var isActive: Bool { channel.isActive }
  /// Completes when the TCP connection is gone.
  public var closeFuture: EventLoopFuture<Void> { channel.closeFuture }
  /// Messages received and not yet taken by `next`.
  public var pendingMessages: Int { queue?.pending ?? 0 }

  // MARK: Connecting

  /// Opens a connection whose messages are read with `next(timeout:)`.
  /// Throws `WebSocketClientError.upgradeRefused` (with the HTTP status and body) when the
  /// server answers the upgrade with anything but 101.
  public static func connect(
    _ url: String, configuration: WebSocketConfiguration = .init(),
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws -> WebSocketConnection {
    let queue = InboundQueue()
    return try await open(ClientURL(url), configuration, group, sink: .queue(queue), queue: queue)
  }

  /// Opens a connection that hands every message to `onEvent`, called on the channel's
  /// event loop; `next` is not available on it.
  public static func connect(
    _ url: String, configuration: WebSocketConfiguration = .init(),
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    onEvent: @escaping @Sendable (WebSocketEvent) -> Void
  ) async throws -> WebSocketConnection {
    try await open(ClientURL(url), configuration, group, sink: .callback(onEvent), queue: nil)
  }

  private struct Pending: Sendable {
    var channel: any Channel
    var upgraded: EventLoopFuture<Bool>
    var response: EventLoopFuture<HTTPResponse>
  }

  private static func open(
    _ url: ClientURL, _ c: WebSocketConfiguration, _ group: any EventLoopGroup, sink: Sink,
    queue: InboundQueue?
  ) async throws -> WebSocketConnection {
    let state = ConnectionState()
    let head = requestHead(url, c)
    var bootstrap = ClientBootstrap(group: group)
      .connectTimeout(c.connectTimeout)
      .channelOption(.socketOption(.tcp_nodelay), value: c.noDelay ? 1 : 0)
    if let size = c.receiveBufferSize {
      bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(size))
    }
    if let size = c.sendBufferSize {
      bootstrap = bootstrap.channelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(size))
    }
    // One context per connection: made before connecting, so a bad configuration is an error
    // here rather than in the channel.
    let tls = try url.isTLS ? NIOSSLContext(configuration: c.tls ?? .makeClientConfiguration()) : nil
    // An address is checked against the certificate's IP names; SNI takes names only.
    let serverName = url.host.contains(":") || url.host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : url.host
    let pending = try await bootstrap.connect(host: url.host, port: url.port) { channel in
      channel.eventLoop.makeCompletedFuture {
        if let tls {
          try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
        }
        let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(maxFrameSize: c.maxFrameSize) {
          channel, _ in
          channel.eventLoop.makeCompletedFuture {
            let handler = FrameHandler(
              sink: sink, state: state, autoPong: c.autoPong, maxMessageSize: c.maxMessageSize)
            try channel.pipeline.syncOperations.addHandler(handler)
            if !c.autoRead { try channel.syncOptions?.setOption(.autoRead, value: false) }
            return true
          }
        }
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Bool>(
          upgradeRequestHead: head, upgraders: [upgrader],
          notUpgradingCompletionHandler: { $0.eventLoop.makeSucceededFuture(false) })
        let encoder = HTTPRequestEncoder()
        let decoder = ByteToMessageHandler(
          HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes))
        let responsePromise = channel.eventLoop.makePromise(of: HTTPResponse.self)
        let recorder = ResponseRecorder(promise: responsePromise)
        let upgradeHandler = NIOTypedHTTPClientUpgradeHandler(
          httpHandlers: [encoder, decoder, recorder], upgradeConfiguration: configuration)
        let ops = channel.pipeline.syncOperations
        try ops.addHandler(encoder)
        try ops.addHandler(decoder)
        try ops.addHandler(recorder)
        try ops.addHandler(upgradeHandler)
        return Pending(
          channel: channel, upgraded: upgradeHandler.upgradeResultFuture,
          response: responsePromise.futureResult)
      }
    }
    let channel = pending.channel
    let timedOut = Locked(false)
    let timer = channel.eventLoop.scheduleTask(in: c.handshakeTimeout) {
      timedOut.withLock { $0 = true }
      channel.close(promise: nil)
    }
    // Cancelled on the event loop the moment the handshake ends, not when this task next runs:
    // on a busy cooperative pool that can be seconds later, and the timer would then close a
    // connection already handed to the caller.
    pending.upgraded.and(pending.response).whenComplete { _ in timer.cancel() }
    do {
      let upgraded = try await pending.upgraded.get()
      let response = try await pending.response.get()
      guard upgraded else {
        channel.close(promise: nil)
        throw WebSocketClientError.upgradeRefused(response)
      }
      return WebSocketConnection(
        channel: channel, url: url, upgradeResponse: response, queue: queue, state: state)
    } catch let error as WebSocketClientError {
      throw error
    } catch {
      channel.close(promise: nil)
      if timedOut.current { throw WebSocketClientError.timeout("connecting to \(url.description)") }
      throw WebSocketClientError.handshakeFailed("\(error)")
    }
  }

  private static func requestHead(_ url: ClientURL, _ c: WebSocketConfiguration) -> HTTPRequestHead {
    var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.target)
    switch c.hostHeader {
    case .none: head.headers.add(name: "Host", value: url.hostHeader)
    case .some(.some(let host)): head.headers.add(name: "Host", value: host)
    case .some(.none): break
    }
    if !c.subprotocols.isEmpty {
      head.headers.add(
        name: "Sec-WebSocket-Protocol", value: c.subprotocols.joined(separator: ", "))
    }
    // Without a length NIO's encoder would announce a chunked body on the GET.
    head.headers.add(name: "Content-Length", value: "0")
    for (name, value) in c.headers { head.headers.add(name: name, value: value) }
    return head
  }

  // MARK: Sending

  /// Writes any frame, hostile ones included (reserved bits, bad opcodes, wrong fragments).
  /// `mask` adds a masking key when the frame has none; pass false to send it unmasked,
  /// which a server must refuse.
  @discardableResult
  public func write(_ frame: WebSocketFrame, mask: Bool = true, flush: Bool = true)
    -> EventLoopFuture<Void>
  {
    var frame = frame
    if mask, frame.maskKey == nil { frame.maskKey = state.nextMask() }
    if frame.opcode == .connectionClose { _ = state.markCloseSent() }
    return flush ? channel.writeAndFlush(frame) : channel.write(frame)
  }

  public func send(frame: WebSocketFrame, mask: Bool = true) async throws {
    try await write(frame, mask: mask).get()
  }

  /// Writes the frames in order with one flush, so nothing of ours comes between them.
  public func send(frames: [WebSocketFrame], mask: Bool = true) async throws {
    guard let last = frames.last else { return }
    for frame in frames.dropLast() { write(frame, mask: mask, flush: false) }
    try await write(last, mask: mask).get()
  }

  /// Text messages in order with one flush (the server reads them in as few reads as it can).
  public func send(texts: [String]) async throws {
    try await send(frames: texts.map { WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: $0)) })
  }

  public func send(text: String) async throws {
    try await send(frame: WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text)))
  }

  /// Text from raw bytes, which need not be valid UTF-8 (to test a server's 1007).
  public func send(text bytes: [UInt8]) async throws {
    try await send(frame: WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: bytes)))
  }

  public func send(binary bytes: [UInt8]) async throws {
    try await send(
      frame: WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: bytes)))
  }

  public func ping(_ payload: [UInt8] = []) async throws {
    try await send(
      frame: WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(bytes: payload)))
  }

  /// One text message as `count` frames (text, continuation..., the last with fin), split by
  /// bytes (a UTF-8 sequence may straddle two frames, as the RFC allows).
  public static func fragments(text bytes: [UInt8], count: Int) -> [WebSocketFrame] {
    let n = max(1, min(count, max(bytes.count, 1)))
    let size = (bytes.count + n - 1) / max(n, 1)
    var frames: [WebSocketFrame] = []
    for i in 0..<n {
      let lo = min(i * size, bytes.count)
      let hi = i == n - 1 ? bytes.count : min(lo + size, bytes.count)
      frames.append(
        WebSocketFrame(
          fin: i == n - 1, opcode: i == 0 ? .text : .continuation,
          data: ByteBuffer(bytes: bytes[lo..<hi])))
    }
    return frames
  }

  /// The load generator's path: no future, no String. Call it on `eventLoop` for best speed.
  public func sendText(_ buffer: ByteBuffer, flush: Bool = true) {
    sendText(buffer, maskKey: state.nextMask(), flush: flush)
  }

  /// As `sendText(_:flush:)` with the caller's masking key: a sender that owns a
  /// `MaskGenerator` on its event loop skips the lock this connection's generator needs.
  public func sendText(_ buffer: ByteBuffer, maskKey: WebSocketMaskingKey, flush: Bool = true) {
    let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: maskKey, data: buffer)
    if flush {
      channel.writeAndFlush(frame, promise: nil)
    } else {
      channel.write(frame, promise: nil)
    }
  }

  public func flush() { channel.flush() }

  /// Sends a close frame (unless one went out already), waits up to `timeout` for the
  /// server to end the connection, then drops it in any case.
  public func close(code: UInt16 = 1000, reason: String = "", timeout: Duration = .seconds(2)) async {
    if channel.isActive, state.markCloseSent() {
      var payload = ByteBuffer()
      payload.writeInteger(code)
      payload.writeString(reason)
      let frame = WebSocketFrame(
        fin: true, opcode: .connectionClose, maskKey: state.nextMask(), data: payload)
      try? await channel.writeAndFlush(frame).get()
    }
    let channel = self.channel
    let timer = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
      channel.close(promise: nil)
    }
    try? await channel.closeFuture.get()
    timer.cancel()
  }

  // MARK: Reading control

  /// Stops reading the socket: the server's writes back up into the kernel buffers.
  public func pauseReading() async throws {
    try await channel.setOption(.autoRead, value: false).get()
  }

  public func resumeReading() async throws {
    try await channel.setOption(.autoRead, value: true).get()
  }
}

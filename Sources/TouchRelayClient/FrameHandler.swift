import NIOCore
import NIOWebSocket

/// State both the event loop and callers read: what the server said when closing.
final class ConnectionState: Sendable {
  struct Values {
    var serverClose: (code: UInt16, reason: String)?
    var closeSent = false
    var masks = MaskGenerator()
  }
  let values = Locked(Values())

  /// Any thread may send, so the generator sits behind the lock (see `MaskGenerator`).
  func nextMask() -> WebSocketMaskingKey {
    values.withLock { $0.masks.next() }
  }

  /// True the first time only: a close frame goes out at most once.
  func markCloseSent() -> Bool {
    values.withLock { s in
      if s.closeSent { return false }
      s.closeSent = true
      return true
    }
  }
}

/// Where received messages go: the async queue, or a callback on the event loop.
enum Sink: Sendable {
  case queue(InboundQueue)
  case callback(@Sendable (WebSocketEvent) -> Void)

  func deliver(_ event: WebSocketEvent) {
    switch self {
    case .queue(let q):
      q.push(Received(event))
    case .callback(let f):
      f(event)
    }
  }
}

/// Joins fragments, answers pings, completes the closing handshake, reports everything
/// else to the sink. Sits last in the pipeline after the upgrade.
final class FrameHandler: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  private let sink: Sink
  private let state: ConnectionState
  private let autoPong: Bool
  private let maxMessageSize: Int
  private var partial: ByteBuffer?
  private var partialIsText = false
  private var reportedClose = false

  init(sink: Sink, state: ConnectionState, autoPong: Bool, maxMessageSize: Int) {
    self.sink = sink
    self.state = state
    self.autoPong = autoPong
    self.maxMessageSize = maxMessageSize
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch frame.opcode {
    case .text, .binary:
      guard partial == nil else {
        return failProtocol(context, "new message inside a fragmented one")
      }
      if frame.fin {
        let data = frame.unmaskedData
        sink.deliver(frame.opcode == .text ? .text(data) : .binary(data))
      } else {
        partial = frame.unmaskedData
        partialIsText = frame.opcode == .text
      }
    case .continuation:
      guard var buffer = partial else {
        return failProtocol(context, "continuation without a message")
      }
      partial = nil  // keeps the buffer uniquely referenced while appending
      var more = frame.unmaskedData
      buffer.writeBuffer(&more)
      guard buffer.readableBytes <= maxMessageSize else {
        return failProtocol(context, "message over \(maxMessageSize) bytes", code: .messageTooLarge)
      }
      if frame.fin {
        sink.deliver(partialIsText ? .text(buffer) : .binary(buffer))
      } else {
        partial = buffer
      }
    case .ping:
      if autoPong {
        let pong = WebSocketFrame(
          fin: true, opcode: .pong, maskKey: state.nextMask(), data: frame.unmaskedData)
        context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
      } else {
        sink.deliver(.ping(frame.unmaskedData))
      }
    case .pong:
      sink.deliver(.pong(frame.unmaskedData))
    case .connectionClose:
      var data = frame.unmaskedData
      let code = data.readInteger(as: UInt16.self) ?? 1005
      let reason = data.readString(length: data.readableBytes) ?? ""
      state.values.withLock { $0.serverClose = (code, reason) }
      report(code: code, reason: reason)
      // Echo the code as RFC 6455 section 5.5.1 asks, then let go of the socket.
      if state.markCloseSent() {
        var payload = context.channel.allocator.buffer(capacity: 2)
        if code != 1005 { payload.writeInteger(code) }
        let reply = WebSocketFrame(
          fin: true, opcode: .connectionClose, maskKey: state.nextMask(), data: payload)
        context.writeAndFlush(wrapOutboundOut(reply)).assumeIsolated().whenComplete { _ in
          context.close(promise: nil)
        }
      } else {
        context.close(promise: nil)
      }
    default:
      failProtocol(context, "unknown opcode \(frame.opcode)")
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    report(code: 1006, reason: "connection closed without a close frame")
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    report(code: 1006, reason: "error: \(error)")
    context.close(promise: nil)
  }

  private func report(code: UInt16, reason: String) {
    guard !reportedClose else { return }
    reportedClose = true
    sink.deliver(.closed(code: code, reason: reason))
  }

  private func failProtocol(
    _ context: ChannelHandlerContext, _ why: String, code: WebSocketErrorCode = .protocolError
  ) {
    partial = nil
    if state.markCloseSent() {
      var payload = context.channel.allocator.buffer(capacity: 2 + why.utf8.count)
      payload.write(webSocketErrorCode: code)
      let frame = WebSocketFrame(
        fin: true, opcode: .connectionClose, maskKey: state.nextMask(), data: payload)
      context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }
    report(code: 1006, reason: "client closed: \(why)")
    context.close(promise: nil)
  }
}

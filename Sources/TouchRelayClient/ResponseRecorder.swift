import NIOCore
import NIOHTTP1

/// Watches the HTTP response to the upgrade request and keeps it, so a refusal can be
/// reported with its status and body (the typed upgrade handler only says "not upgraded").
/// Passes everything through; the upgrade handler removes it together with the HTTP codec.
final class ResponseRecorder: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPClientResponsePart
  typealias InboundOut = HTTPClientResponsePart

  private let promise: EventLoopPromise<HTTPResponse>
  private var head: HTTPResponseHead?
  private var body: [UInt8] = []
  private var done = false

  init(promise: EventLoopPromise<HTTPResponse>) {
    self.promise = promise
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let h): head = h
    case .body(let b): body.append(contentsOf: b.readableBytesView)
    case .end: finish()
    }
    context.fireChannelRead(data)
  }

  func channelInactive(context: ChannelHandlerContext) {
    finish()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    finish()
  }

  private func finish() {
    guard !done else { return }
    done = true
    if let head {
      promise.succeed(
        HTTPResponse(
          status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) },
          body: body))
    } else {
      promise.fail(
        WebSocketClientError.handshakeFailed("connection closed before an HTTP response"))
    }
  }
}

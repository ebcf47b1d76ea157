import NIOCore
import NIOHTTP1

/// Writes one HTTP request as soon as the connection is up, from the channel's own event loop:
/// a caller's task that is slow to be scheduled (a busy cooperative pool) cannot hold the
/// request back until the server gives up on the idle connection.
final class RequestWriter: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPClientResponsePart
  typealias InboundOut = HTTPClientResponsePart
  typealias OutboundOut = HTTPClientRequestPart

  private let head: HTTPRequestHead
  private let body: [UInt8]

  init(head: HTTPRequestHead, body: [UInt8]) {
    self.head = head
    self.body = body
  }

  func channelActive(context: ChannelHandlerContext) {
    context.write(wrapOutboundOut(.head(head)), promise: nil)
    if !body.isEmpty {
      context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
    }
    context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    context.fireChannelActive()
  }
}

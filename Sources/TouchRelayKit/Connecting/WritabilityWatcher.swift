import NIOCore

/// Tells its owner when the socket takes writes again, so samples held back while it was
/// backed up go out. Called later on the loop, never from inside a write.
final class WritabilityWatcher: ChannelInboundHandler, Sendable {
  typealias InboundIn = NIOAny
  private let onWritable: @Sendable () -> Void

  init(onWritable: @escaping @Sendable () -> Void) {
    self.onWritable = onWritable
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable {
      let onWritable = self.onWritable
      context.eventLoop.execute { onWritable() }
    }
    context.fireChannelWritabilityChanged()
  }
}

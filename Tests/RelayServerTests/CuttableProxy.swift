import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy on loopback in front of a relay, for what a network does to a client: `stall()`
/// stops reading from the clients (their writes back up, as on a slow link), `cut()` ends every
/// connection without a WebSocket close (a dropped network). New connections are still taken.
final class CuttableProxy: Sendable {
  private let listener: any Channel
  private let clients = NIOLockedValueBox<[any Channel]>([])
  private let stalled = NIOLockedValueBox(false)
  let port: Int

  init(to targetPort: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws {
    let clients = self.clients
    let stalled = self.stalled
    listener = try await ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      // Small buffers on the clients' side, so a stall backs up after a few kilobytes.
      .serverChannelOption(.socketOption(.so_rcvbuf), value: 4096)
      .childChannelOption(.autoRead, value: false)
      .childChannelInitializer { client in
        ClientBootstrap(group: client.eventLoop)
          .connect(host: "127.0.0.1", port: targetPort)
          .flatMap { server in
            client.eventLoop.makeCompletedFuture {
              try client.pipeline.syncOperations.addHandler(Forwarder(peer: server))
              try server.pipeline.syncOperations.addHandler(Forwarder(peer: client))
              clients.withLockedValue { $0.append(client) }
              if !stalled.withLockedValue({ $0 }) { client.setOption(.autoRead, value: true).whenComplete { _ in } }
            }
          }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    port = listener.localAddress?.port ?? 0
  }

  func url(_ path: String) -> String { "ws://127.0.0.1:\(port)\(path)" }

  /// Stops reading what clients send.
  func stall() async throws {
    stalled.withLockedValue { $0 = true }
    for c in clients.withLockedValue({ $0 }) { try? await c.setOption(.autoRead, value: false).get() }
  }

  func resume() async throws {
    stalled.withLockedValue { $0 = false }
    for c in clients.withLockedValue({ $0 }) { try? await c.setOption(.autoRead, value: true).get() }
  }

  /// Closes every connection through the proxy at once (both sides see the TCP end).
  func cut() async {
    let all = clients.withLockedValue { list in
      defer { list.removeAll() }
      return list
    }
    for c in all { try? await c.close().get() }
  }

  func close() async {
    await cut()
    try? await listener.close().get()
  }
}

/// Writes what one side reads to the other; closes the other when one ends.
private final class Forwarder: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer
  let peer: any Channel

  init(peer: any Channel) { self.peer = peer }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    peer.close(promise: nil)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}

import NIOCore
import NIOHTTP1
import NIOPosix

/// Plain HTTP requests on the relay's port (`/healthz`, 404 checks).
public enum HTTPClient {
  /// `GET url` with `Connection: close`; the whole response is read.
  public static func get(
    _ url: String, headers: [(String, String)] = [], timeout: Duration = .seconds(5),
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws -> HTTPResponse {
    try await request(.GET, url, headers: headers, timeout: timeout, group: group)
  }

  public static func request(
    _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8] = [],
    timeout: Duration = .seconds(5),
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws -> HTTPResponse {
    let target = try ClientURL(url)
    // Plain HTTP only: the pages and health checks it is for are tested over TCP.
    guard !target.isTLS else { throw WebSocketClientError.badURL(url) }
    var head = HTTPRequestHead(version: .http1_1, method: method, uri: target.target)
    head.headers.add(name: "Host", value: target.hostHeader)
    head.headers.add(name: "Connection", value: "close")
    head.headers.add(name: "Content-Length", value: String(body.count))
    for (name, value) in headers { head.headers.add(name: name, value: value) }
    let requestHead = head
    // The response's promise and both handlers are in place before the connection is made,
    // and the request leaves from the event loop when it is: nothing waits on the caller.
    let eventLoop = group.next()
    let promise = eventLoop.makePromise(of: HTTPResponse.self)
    let channel: any Channel
    do {
      channel = try await ClientBootstrap(group: eventLoop)
        .connectTimeout(TimeAmount(timeout))
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            let ops = channel.pipeline.syncOperations
            try ops.addHTTPClientHandlers()
            try ops.addHandler(RequestWriter(head: requestHead, body: body))
            try ops.addHandler(ResponseRecorder(promise: promise))
          }
        }
        .connect(host: target.host, port: target.port).get()
    } catch {
      // A promise left unfulfilled is a fatal error in NIO's debug builds.
      promise.fail(error)
      throw error
    }
    let timer = channel.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
      channel.close(promise: nil)
    }
    defer {
      timer.cancel()
      channel.close(promise: nil)
    }
    do {
      return try await promise.futureResult.get()
    } catch {
      throw WebSocketClientError.timeout(
        "waiting for the HTTP response to GET \(target.description)")
    }
  }
}

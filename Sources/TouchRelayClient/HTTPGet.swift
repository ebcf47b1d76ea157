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
    var head = HTTPRequestHead(version: .http1_1, method: method, uri: target.target)
    head.headers.add(name: "Host", value: target.hostHeader)
    head.headers.add(name: "Connection", value: "close")
    head.headers.add(name: "Content-Length", value: String(body.count))
    for (name, value) in headers { head.headers.add(name: name, value: value) }
    let requestHead = head
    let channel = try await ClientBootstrap(group: group)
      .connectTimeout(TimeAmount(timeout))
      .connect(host: target.host, port: target.port) { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHTTPClientHandlers()
          return channel
        }
      }
    let promise = channel.eventLoop.makePromise(of: HTTPResponse.self)
    do {
      try await channel.eventLoop.submit {
        try channel.pipeline.syncOperations.addHandler(ResponseRecorder(promise: promise))
      }.get()
    } catch {
      // The server closed the connection first (a refused or shutting-down server does): a
      // promise left unfulfilled is a fatal error in NIO's debug builds.
      promise.fail(error)
      channel.close(promise: nil)
      throw error
    }
    channel.write(HTTPClientRequestPart.head(requestHead), promise: nil)
    if !body.isEmpty {
      channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
    }
    channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
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

import NIOCore
import TouchRelayClient

/// Opens one WebSocket connection to the relay with a fresh token, on a given event loop.
struct RelayConnector: Sendable {
  let url: ClientURL
  let websocket: WebSocketConfiguration
  let token: TokenProvider?

  func connect(
    on loop: any EventLoop, onEvent: @escaping @Sendable (WebSocketEvent) -> Void
  ) async throws -> WebSocketConnection {
    var configuration = websocket
    if let token, let value = try await token() {
      configuration.headers.append(("Authorization", "Bearer \(value)"))
    }
    return try await WebSocketConnection.connect(
      "\(url.scheme)://\(url.hostHeader)\(url.target)", configuration: configuration, group: loop,
      onEvent: onEvent)
  }

  /// True for a refusal that trying again cannot fix (a wrong path or a bad query);
  /// 401 and 403 are retried, as the token provider may give a better token next time.
  static func isFinal(_ error: any Error) -> Bool {
    guard let status = (error as? WebSocketClientError)?.refusedStatus else { return false }
    return status == 400 || status == 404
  }
}

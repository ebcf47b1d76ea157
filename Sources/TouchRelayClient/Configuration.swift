import NIOCore
import NIOSSL
import TouchProtocol

/// How a connection is opened and how it behaves.
public struct WebSocketConfiguration: Sendable {
  /// Offered in `Sec-WebSocket-Protocol`; empty sends no such header.
  public var subprotocols: [String] = [TouchProtocol.protocolName]
  /// Extra request headers, sent after the handshake's own.
  public var headers: [(String, String)] = []
  /// Overrides the `Host` header; `.some(nil)` omits it (to test a server's refusal).
  public var hostHeader: String?? = nil
  public var connectTimeout: TimeAmount = .seconds(5)
  /// TCP connect plus the HTTP upgrade.
  public var handshakeTimeout: TimeAmount = .seconds(5)
  /// Largest single frame and largest reassembled message accepted from the server.
  public var maxFrameSize: Int = 1 << 24
  public var maxMessageSize: Int = 1 << 24
  /// Answer the server's pings with pongs (and do not report the pings).
  public var autoPong: Bool = true
  /// False once upgraded: the socket is never read until `resumeReading()`; a slow
  /// observer that never reads, for back-pressure tests.
  public var autoRead: Bool = true
  /// SO_RCVBUF before connecting; small values make a non-reading peer back up sooner.
  public var receiveBufferSize: Int? = nil
  /// SO_SNDBUF before connecting; fixing it stops the kernel growing it, so writes to a peer
  /// that stopped reading back up into the client's own buffers soon.
  public var sendBufferSize: Int? = nil
  public var noDelay: Bool = true
  /// For `wss://`: how the server is verified (trust roots, certificate checks). Nil uses the
  /// system's trust roots with full verification of the certificate and the host name.
  public var tls: TLSConfiguration? = nil

  public init() {}

  /// The default configuration with other subprotocols (`[]` for none).
  public static func subprotocols(_ list: [String]) -> WebSocketConfiguration {
    var c = WebSocketConfiguration()
    c.subprotocols = list
    return c
  }
}

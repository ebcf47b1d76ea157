import CLibWebSockets
import RelayCore
import TouchProtocol

/// The driver's side of one WebSocket: its wsi, what is owed to lws for writing, and the
/// message being reassembled from fragments. The driver finds it by the core's `PeerID`
/// (`PeerLinks`); the wsi's opaque user data holds the reference from LWS_CALLBACK_ESTABLISHED
/// to LWS_CALLBACK_CLOSED.
final class LWSPeer {
  let wsi: OpaquePointer
  /// The core's name for this connection's peer.
  let peer: PeerID
  /// Pending messages leave together, one send per write (see `FrameBatch`); false when
  /// permessage-deflate may be in use, where lws must frame each message itself.
  let batchesWrites: Bool
  var write = WriteState.idle
  /// The message last handed to lws_write with deflate; kept alive until the next writable
  /// callback, as lws compresses from it.
  var inFlight: OutgoingMessage?
  /// Bytes of the message being reassembled from fragments.
  var rx: [UInt8] = []
  /// Where the UTF-8 check of the message under way stands (chunks and fragments).
  var utf8 = UTF8Validator()
  /// Its close frame was answered with our own close (`.answerClose`): the callback hangs up.
  var answeredClose = false
  /// It sent a close frame (LWS_CALLBACK_WS_PEER_INITIATED_CLOSE): lws answers it, and nothing
  /// more is written.
  var peerClosed = false
  /// `nextWrite` gave its close: what is left goes out from the writable callback, which ends
  /// with the close.
  var closing = false
  /// When it was last heard from (anything received, a pong included), in the driver's
  /// keep-alive seconds (`LWSDriver.keepAliveSecond(of:)`).
  var heardAt: UInt32
  /// A ping is to go out from the next writable callback; `pinged`: one went out since it was
  /// last heard from (one ping per silence, as lws' own keep-alive).
  var pingDue = false
  var pinged = false
  /// Silent past `--idle-timeout`: lws closes it at its next service.
  var hungUp = false

  init(wsi: OpaquePointer, peer: PeerID, batchesWrites: Bool, heardAt: UInt32) {
    self.wsi = wsi
    self.peer = peer
    self.batchesWrites = batchesWrites
    self.heardAt = heardAt
  }

  /// Heard from now: silence starts again.
  @inline(__always) func heard(at second: UInt32) {
    heardAt = second
    pinged = false
  }

  /// The driver's peer of a wsi, from its opaque user data.
  static func of(_ wsi: OpaquePointer) -> LWSPeer? {
    guard let raw = lws_get_opaque_user_data(wsi) else { return nil }
    return Unmanaged<LWSPeer>.fromOpaque(raw).takeUnretainedValue()
  }
}

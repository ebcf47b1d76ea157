import CLibWebSockets

/// A socket on the service thread's loop that is neither a WebSocket nor an HTTP peer: a TCP
/// connection libwebsockets makes (`connect`: the cluster bus's Redis links) or a descriptor of
/// our own it polls (`adopt`: the TUIO UDP socket). libwebsockets keeps what a write leaves
/// over and reports each socket's events, on the raw protocol (`protocolName`), to its owner
/// (`RawSocketOwner`). Code outside `LibWebSockets/` reaches libwebsockets only through this
/// and `RelayTimer` (ARCHITECTURE.md). A value: two are equal when they are the same socket.
struct RawSocket: Equatable {
  fileprivate let wsi: OpaquePointer

  /// The vhost's protocol every raw socket is on; never a WebSocket subprotocol (see
  /// `rawSocketCallback`).
  static let protocolName = "touchrelay-raw"
  /// Spare bytes `write` needs before what it sends (`LWS_PRE`).
  static let headroom = Int(tr_lws_pre())
  /// The vhost `connect` makes its connections on, which the context is created with
  /// (`RelayServer`): one that does not listen and has IPv6 on, whatever the listener's. The
  /// listener's vhost has IPv6 off beside an IPv4 listener (see `ListenAddress`), and on it lws
  /// cannot start a connection to an IPv6 address.
  static let clientVhostName = "touchrelay-client"

  /// Starts connecting to `host:port` (a numeric address, IPv4 or IPv6); nil if libwebsockets
  /// could not start (it copies the strings it keeps). `owner`, held unretained, must outlive
  /// the socket.
  static func connect(context: OpaquePointer, host: String, port: Int, owner: any RawSocketOwner) -> RawSocket? {
    guard let vhost = lws_get_vhost_by_name(context, clientVhostName) else { return nil }
    return host.withCString { host in
      protocolName.withCString { name in
        "RAW".withCString { method in
          var info = lws_client_connect_info()
          info.context = context
          info.vhost = vhost
          info.address = host
          info.port = Int32(port)
          info.host = host
          info.origin = host
          info.method = method
          info.protocol = name
          info.local_protocol_name = name
          // Set before lws can report anything of the connection, a failure to connect included.
          info.opaque_user_data = Unmanaged.passUnretained(owner as AnyObject).toOpaque()
          return lws_client_connect_via_info(&info).map(RawSocket.init)
        }
      }
    }
  }

  /// Puts `descriptor` (ours, non-blocking) on the loop of `vhost`'s context: each time it is
  /// readable, `owner.rawSocketReadable`. libwebsockets closes it with the context. `owner`,
  /// held unretained, must outlive the socket.
  static func adopt(descriptor: Int32, vhost: OpaquePointer, owner: any RawSocketOwner) -> RawSocket? {
    var fd = lws_sock_file_fd_type()
    fd.filefd = descriptor
    let wsi = protocolName.withCString { lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_RAW_FILE_DESC, fd, $0, nil) }
    guard let wsi else { return nil }
    // Nothing is read before the loop runs again, so no event is missed until this is set.
    lws_set_opaque_user_data(wsi, Unmanaged.passUnretained(owner as AnyObject).toOpaque())
    return RawSocket(wsi: wsi)
  }

  /// libwebsockets still holds part of an earlier write: write again once `writable`.
  var isHoldingUnsent: Bool { lws_partial_buffered(wsi) != 0 }

  /// Asks for `rawSocketWritable` once the socket takes more.
  func askForWritable() { lws_callback_on_writable(wsi) }

  /// Sends the bytes of `buffer` after its first `headroom` as they are (as `LWS_WRITE_HTTP`,
  /// which is what lws' `LWS_WRITE_RAW` macro names); what the socket does not take at once,
  /// libwebsockets keeps and sends when it can (`isHoldingUnsent`). False: the connection failed.
  func write(_ buffer: inout [UInt8]) -> Bool {
    let count = buffer.count - Self.headroom
    guard count > 0 else { return true }
    return buffer.withUnsafeMutableBytes { raw in
      lws_write(wsi, raw.baseAddress!.advanced(by: Self.headroom).assumingMemoryBound(to: UInt8.self), count, LWS_WRITE_HTTP)
        >= 0
    }
  }

  /// Ends the connection on the loop's next turn; `rawSocketClosed` follows.
  func cut() {
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
  }
}

/// The raw protocol's callback: each raw socket's events to its owner (the socket's opaque
/// user data).
func rawSocketCallback(
  _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
  _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
  switch reason {
  case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE, LWS_CALLBACK_ESTABLISHED, LWS_CALLBACK_HTTP:
    // Not a WebSocket or HTTP protocol: a client naming it gets nothing.
    return -1
  default:
    break
  }
  guard let wsi, let opaque = lws_get_opaque_user_data(wsi),
    let owner = Unmanaged<AnyObject>.fromOpaque(opaque).takeUnretainedValue() as? any RawSocketOwner
  else { return 0 }
  let socket = RawSocket(wsi: wsi)
  switch reason {
  case LWS_CALLBACK_RAW_CONNECTED:
    owner.rawSocketConnected(socket)
  case LWS_CALLBACK_RAW_RX:
    owner.rawSocket(socket, received: UnsafeRawBufferPointer(start: input, count: len))
  case LWS_CALLBACK_RAW_RX_FILE:
    owner.rawSocketReadable(socket)
  case LWS_CALLBACK_RAW_WRITEABLE, LWS_CALLBACK_RAW_WRITEABLE_FILE:
    owner.rawSocketWritable(socket)
  case LWS_CALLBACK_RAW_CLOSE, LWS_CALLBACK_RAW_CLOSE_FILE:
    owner.rawSocketClosed(socket, error: nil)
  case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
    let why = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection failed"
    owner.rawSocketClosed(socket, error: why)
  default:
    break
  }
  return 0
}

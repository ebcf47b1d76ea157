import CLibWebSockets

#if canImport(Glibc)
  import Glibc
#endif

/// `--reuse-port`: a listening socket of the relay's own, with `SO_REUSEPORT`, so that several
/// relay processes on one machine share one port and the kernel spreads connections over them.
/// libwebsockets 4.1's `LWS_SERVER_OPTION_ALLOW_LISTEN_SHARE` does nothing with one service
/// thread (a second process fails to bind), so the vhost gets no listener of its own
/// (`CONTEXT_PORT_NO_LISTEN_SERVER`); this socket is adopted onto the service thread's loop as a
/// raw file (`listenerCallback`), and each connection it accepts is handed to the vhost with
/// `lws_adopt_descriptor_vhost`, as lws' own listener does.
struct SharedListener {
  let fd: Int32
  /// The port bound (the one the system picked for port 0).
  let port: Int

  /// The raw protocol the listening socket is adopted on; never a WebSocket subprotocol.
  static let protocolName = "touchrelay-shared-listener"

  /// Binds and listens on `address` (the same rules as lws' listener: see `ListenAddress`; an
  /// interface name binds its address, IPv4 first) with `SO_REUSEPORT`, non-blocking.
  static func open(_ address: ListenAddress, host: String, port: Int) throws -> SharedListener {
    func failure(_ why: String) -> RelayServer.StartError {
      .cannotListen(host: host, port: port, why: why)
    }
    let numeric: String
    switch address.iface {
    case nil: numeric = address.ipv6 ? "::" : "0.0.0.0"
    case let name? where if_nametoindex(name) != 0 && !isNumeric(name):
      guard let a = ListenAddress.interfaceAddress(name) else { throw failure("interface \(name) has no address") }
      numeric = a
    case let name?: numeric = name
    }
    var hints = addrinfo()
    hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(numeric, String(port), &hints, &list)
    guard rc == 0, let ai = list else { throw failure(String(cString: gai_strerror(rc))) }
    defer { freeaddrinfo(list) }
    let family = ai.pointee.ai_family
    let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
    var on: Int32 = 1
    var off: Int32 = 0
    let size = socklen_t(MemoryLayout<Int32>.size)
    // As lws' own listener: a restart binds again at once over connections in TIME_WAIT.
    _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size)
    // Both stacks on `::`, as lws' listener has them.
    if family == AF_INET6 { _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, size) }
    guard setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, size) == 0,
      bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0, listen(fd, SOMAXCONN) == 0
    else {
      let why = String(cString: strerror(errno))
      close(fd)
      throw failure(why)
    }
    var bound = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &bound) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    let portBE = withUnsafeBytes(of: bound) { raw -> UInt16 in
      // sin_port and sin6_port are both the 2 bytes after the family.
      raw.load(fromByteOffset: 2, as: UInt16.self)
    }
    return SharedListener(fd: fd, port: Int(UInt16(bigEndian: portBE)))
  }

  private static func isNumeric(_ s: String) -> Bool {
    var a4 = in_addr()
    var a6 = in6_addr()
    return inet_pton(AF_INET, s, &a4) == 1 || inet_pton(AF_INET6, s, &a6) == 1
  }
}

/// The listening socket's protocol: readable means connections wait to be accepted. It is on
/// the vhost's protocol list only to be adopted on, so no client may pick it as a subprotocol.
func listenerCallback(
  _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
  _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
  switch reason {
  case LWS_CALLBACK_RAW_RX_FILE:
    guard let wsi, let driver = driverOf(wsi) else { return 0 }
    // Shut down (`stopListening`): lws closes it.
    guard driver.sharedListener != nil else { return -1 }
    // Accepting reaches lws only, never the core: no actions follow.
    driver.acceptShared()
    return 0
  case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
    return 1
  case LWS_CALLBACK_ESTABLISHED:
    return -1
  default:
    return 0
  }
}

#if canImport(Glibc)
  import Glibc
#endif

/// A plain TCP connection to 127.0.0.1:`port`, for tests that need a socket below WebSocket
/// (one that never reads, or never says a word): its descriptor, or nil with errno set.
/// `receiveBuffer`: SO_RCVBUF, set before connecting.
func loopbackSocket(port: Int, receiveBuffer: Int32? = nil) -> Int32? {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { return nil }
  if var size = receiveBuffer {
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
  }
  var a = sockaddr_in()
  a.sin_family = sa_family_t(AF_INET)
  a.sin_port = in_port_t(UInt16(port).bigEndian)
  a.sin_addr.s_addr = inet_addr("127.0.0.1")
  let connected = withUnsafePointer(to: &a) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  guard connected == 0 else {
    let e = errno
    close(fd)
    errno = e
    return nil
  }
  return fd
}

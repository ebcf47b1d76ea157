import CLibWebSockets
import RelayCore

#if canImport(Glibc)
  import Glibc
#endif

extension LWSDriver {
  /// `--reuse-port`: accepts every connection waiting on the shared listening socket and hands
  /// each to lws as its own listener would (HTTP first, WebSocket by upgrade; TLS when the
  /// vhost has it). Admission is unchanged: limits are checked on the upgrade, as before.
  func acceptShared() {
    guard let listener = sharedListener, let vhost else { return }
    var type = LWS_ADOPT_SOCKET.rawValue | LWS_ADOPT_HTTP.rawValue
    if config.tlsCertificate != nil { type |= LWS_ADOPT_ALLOW_SSL.rawValue }
    while true {
      let fd = tr_accept4(listener, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
      if fd < 0 {
        let e = errno
        if e == EINTR || e == ECONNABORTED { continue }
        if e == EMFILE || e == ENFILE, refuseWithSpare(listener) { continue }
        if e != EAGAIN && e != EWOULDBLOCK { acceptFailed(e) }
        return
      }
      // While shutting down, new sockets are refused outright (as LWS_CALLBACK_FILTER_NETWORK_CONNECTION does).
      if core.stopping {
        close(fd)
        continue
      }
      if refusesForDescriptors(fd) {
        close(fd)
        continue
      }
      // As lws' listener: small messages leave at once.
      var on: Int32 = 1
      _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
      var descriptor = lws_sock_file_fd_type()
      descriptor.sockfd = fd
      // On failure lws has closed the socket (and logged why).
      _ = lws_adopt_descriptor_vhost(vhost, lws_adoption_type(rawValue: type), descriptor, nil, nil)
    }
  }

  /// On shutdown the shared socket closes at once, so the kernel sends new connections to the
  /// other nodes on the port while this one drains (lws' own listener stays open, and new
  /// sockets are refused there).
  /// `shutdown` takes the socket out of the port's group now (lws' timeouts run once a
  /// second); the readiness that follows makes lws close it (see `listenerCallback`).
  func stopListening() {
    guard let wsi = sharedListenerWSI, let fd = sharedListener else { return }
    sharedListenerWSI = nil
    sharedListener = nil
    if spareDescriptor >= 0 { close(spareDescriptor) }
    spareDescriptor = -1
    shutdown(fd, Int32(SHUT_RDWR))
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
  }

  /// Whether a connection just accepted on `fd` is one too many for the descriptors: the
  /// system gives out the lowest free descriptor, so one at `descriptorCeiling` or above means
  /// nearly all below it are taken. Such a connection is answered HTTP 503 at once (with TLS,
  /// only closed: a plain answer would mean nothing to it) and the caller closes it, so the
  /// descriptors never run out under a crowd of connections that never upgrade, and accepting
  /// never fails and spins on a socket that stays readable. Both listeners ask (lws' in
  /// LWS_CALLBACK_FILTER_NETWORK_CONNECTION).
  func refusesForDescriptors(_ fd: Int32) -> Bool {
    guard fd >= descriptorCeiling else { return false }
    answerOutOfDescriptors(fd)
    return true
  }

  /// The 503 "out of descriptors" written on `fd` (not with TLS), and the log line.
  private func answerOutOfDescriptors(_ fd: Int32) {
    if config.tlsCertificate == nil {
      let answer = HTTPResponse(status: 503, body: "out of descriptors\n").bytes
      _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
    acceptFailed(EMFILE, refused: true)
  }

  /// Out of descriptors all the same (something other than connections took the rest): the
  /// waiting connection would keep the socket readable, and the loop would spin on it. The
  /// spare descriptor is given up for it, so it is accepted, answered as above, and closed, and
  /// the spare taken again. False when there is no spare (it could not be taken back).
  private func refuseWithSpare(_ listener: Int32) -> Bool {
    guard spareDescriptor >= 0 else { return false }
    close(spareDescriptor)
    spareDescriptor = -1
    let fd = tr_accept4(listener, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue))
    if fd >= 0 {
      answerOutOfDescriptors(fd)
      close(fd)
    }
    takeSpareDescriptor()
    return fd >= 0
  }

  /// Keeps one descriptor open for `refuseWithSpare`.
  func takeSpareDescriptor() {
    if spareDescriptor < 0 { spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC) }
  }

  /// Out of descriptors or memory: lws' listener logs and waits for the next readiness; so
  /// do we, once a second at most.
  private func acceptFailed(_ e: Int32, refused: Bool = false) {
    let t = now()
    guard t - acceptErrorLoggedAt >= 1000 else { return }
    acceptErrorLoggedAt = t
    logger.error(
      refused ? "out of descriptors: a connection was answered 503" : "cannot accept a connection",
      metadata: ["error": "\(String(cString: strerror(e)))"])
  }
}

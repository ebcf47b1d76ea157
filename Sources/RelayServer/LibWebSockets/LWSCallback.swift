import CLibWebSockets
import RelayCore
import TouchProtocol

/// The one libwebsockets protocol callback: HTTP requests, upgrades and WebSocket events. It
/// turns lws reasons into core events and keeps no state of its own.
func relayCallback(
  _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
  _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
  guard let wsi, let context = lws_get_context(wsi), let handle = lws_context_user(context) else { return 0 }
  // The context's user data holds the driver as long as the context lives, and a wsi's opaque
  // data its peer until LWS_CALLBACK_CLOSED: both are used without reference counting (a
  // retain and a release each per callback, several per frame).
  return Unmanaged<LWSDriver>.fromOpaque(handle)._withUnsafeGuaranteedRef { driver in
    // Whatever this callback made the core ask for is carried out before lws goes on.
    defer { driver.performActions() }
    return serve(wsi, reason, user, input, len, driver)
  }
}

/// `relayCallback`'s work, with the driver it found.
private func serve(
  _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
  _ input: UnsafeMutableRawPointer?, _ len: Int, _ driver: LWSDriver
) -> Int32 {
  let core = driver.core
  switch reason {
  case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
    driver.checkReload()
    driver.checkStop()
    return 0

  case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
    // While shutting down, new sockets are refused outright; lws closes what is refused.
    if core.stopping { return 1 }
    // `input` carries the accepted socket's descriptor.
    return driver.refusesForDescriptors(Int32(truncatingIfNeeded: Int(bitPattern: input))) ? 1 : 0

  case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
    // The last chance to answer in plain HTTP: bad paths and session names never upgrade.
    let (path, args) = LWSRequest.target(of: wsi)
    switch RequestTarget.parse(path: path, args: args) {
    case .failure(.notFound):
      return HTTPResponse.notFound.send(on: wsi) ? 1 : -1
    case .failure(.badRequest(let why)):
      return HTTPResponse(status: 400, body: why + "\n").send(on: wsi) ? 1 : -1
    case .success(let target):
      let request = driver.admitting(wsi)
      core.admit(
        request, target, address: LWSRequest.client(of: wsi, trusting: driver.trustedProxies),
        token: LWSRequest.token(of: wsi, args: args),
        origin: LWSRequest.header(WSI_TOKEN_ORIGIN, of: wsi), wallClock: WallClock.nowSeconds(), at: driver.now())
      // lws needs the answer before this returns: a refusal is an action, sent as it is carried out.
      driver.performActions()
      return driver.admitted(request)
    }

  case LWS_CALLBACK_ESTABLISHED:
    let (path, args) = LWSRequest.target(of: wsi)
    guard case .success(let target) = RequestTarget.parse(path: path, args: args) else { return -1 }
    // lws accepts the extension whenever it offers it and the client asks (it then frames
    // and compresses each message itself), so an offer is enough to rule batching out.
    let deflate =
      driver.config.compression
      && LWSRequest.header(WSI_TOKEN_EXTENSIONS, of: wsi)?.firstRange(of: "permessage-deflate") != nil
    // lws creates the compressor at the first write, with the options set by then.
    if deflate {
      _ = lws_set_extension_option(wsi, "permessage-deflate", "mem_level", String(driver.config.deflateMemLevel))
    }
    // The token again, for a signed token's expiry (see `RelayCore.scheduleTokenExpiry`).
    let peer = core.open(
      target, address: LWSRequest.client(of: wsi, trusting: driver.trustedProxies),
      token: LWSRequest.token(of: wsi, args: args),
      wallClock: WallClock.nowSeconds(), at: driver.now())
    let link = LWSPeer(
      wsi: wsi, peer: peer, batchesWrites: driver.config.writeBatchBytes > 0 && !deflate,
      heardAt: LWSDriver.keepAliveSecond(of: driver.now()))
    // The wsi holds the driver's peer until LWS_CALLBACK_CLOSED.
    lws_set_opaque_user_data(wsi, Unmanaged.passRetained(link).toOpaque())
    driver.links.add(link)
    return 0

  case LWS_CALLBACK_RECEIVE:
    guard let raw = lws_get_opaque_user_data(wsi) else { return -1 }
    Unmanaged<LWSPeer>.fromOpaque(raw)._withUnsafeGuaranteedRef { receive(driver, $0, input, len) }
    return 0

  case LWS_CALLBACK_RECEIVE_PONG:
    LWSPeer.of(wsi)?.heard(at: LWSDriver.keepAliveSecond(of: driver.now()))
    return 0

  case LWS_CALLBACK_SERVER_WRITEABLE:
    guard let link = LWSPeer.of(wsi) else { return 0 }
    return driver.writable(link)

  case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
    guard let link = LWSPeer.of(wsi) else { return 0 }
    let payload = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : len)
    link.peerClosed = true
    core.peerSentClose(link.peer, payload: payload)
    // lws needs the answer before this returns: an `.answerClose` is carried out here.
    driver.performActions()
    // Echoed: lws answers with the same payload; nothing may follow its answer. Answered with
    // our own close (lws would echo the frame as it came: a 5000, a 1-byte payload, a reason
    // that is not UTF-8): returning -1 with no close reason set makes lws hang up at once
    // instead of sending a close of its own and waiting 5 s for its ack.
    return link.answeredClose ? -1 : 0

  case LWS_CALLBACK_CLOSED:
    if let raw = lws_get_opaque_user_data(wsi) {
      let link = Unmanaged<LWSPeer>.fromOpaque(raw).takeRetainedValue()
      lws_set_opaque_user_data(wsi, nil)
      driver.links.remove(link.peer)
      core.closed(link.peer, at: driver.now())
    }
    return 0

  case LWS_CALLBACK_HTTP:
    let response = driver.routes.respond(
      to: LWSRequest.request(of: wsi, trusting: driver.trustedProxies), at: driver.now())
    guard response.send(on: wsi) else { return -1 }
    return lws_http_transaction_completed(wsi) != 0 ? -1 : 0

  default:
    return lws_callback_http_dummy(wsi, reason, user, input, len)
  }
}

/// Reassembles a message from lws' chunks and enforces the size limit on decompressed bytes.
/// A refused message is closed from the writable callback rather than by returning -1 here:
/// while lws is inflating a permessage-deflate message it does not act on RECEIVE's -1.
private func receive(_ driver: LWSDriver, _ link: LWSPeer, _ input: UnsafeMutableRawPointer?, _ len: Int) {
  let peer = link.peer
  // One clock reading for the core and the keep-alive: a late heartbeat must not make a
  // connection that is talking look silent.
  let now = driver.now()
  link.heard(at: LWSDriver.keepAliveSecond(of: now))
  // Once a close is decided, the rest of what the peer sends is ignored (by the core too).
  guard !link.closing, !link.peerClosed else { return }
  let wsi = link.wsi
  if lws_frame_is_binary(wsi) != 0 {
    link.rx = []
    return driver.core.refuse(peer, .binary, at: now)
  }
  let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : len)
  let final = lws_is_final_fragment(wsi) != 0
  // UTF-8 is checked here, not by lws (LWS_SERVER_OPTION_VALIDATE_UTF8 is off): lws hangs up
  // without a close frame on a close reason that is not UTF-8, where RFC 6455 asks for 1007.
  // Chunks and fragments are read on from where the last one stopped.
  guard link.utf8.consume(chunk), !final || link.utf8.isComplete else {
    link.rx = []
    return driver.core.refuse(peer, .invalidText, at: now)
  }
  if final { link.utf8 = UTF8Validator() }
  let limit = driver.core.configuration.limits.maxMessageBytes
  // A frame that declares more than the limit (plus slack for deflate's framing) is refused
  // at once, rather than after the peer has sent that much.
  let declared = Int(lws_remaining_packet_payload(wsi))
  guard link.rx.count + chunk.count <= limit, declared <= limit + 1024 else {
    link.rx = []
    return driver.core.refuse(peer, .tooBig, at: now)
  }
  if final && link.rx.isEmpty {
    // The common case: a whole message in one chunk, decoded where it lies.
    driver.core.receive(chunk, from: peer, at: now)
  } else {
    link.rx.append(contentsOf: chunk)
    if final {
      link.rx.withUnsafeBytes { driver.core.receive($0, from: peer, at: now) }
      link.rx.removeAll(keepingCapacity: link.rx.capacity <= 64 * 1024)
    }
  }
}

/// Writes a close frame of our own (code and reason) at once, outside lws' close handshake:
/// lws 4.1 keeps its close opcode private (`lws_close_reason` only sets the code for a close
/// lws sends itself, then waits for its ack), so the frame is built here (server frames are
/// unmasked) and handed over as bytes to send as they are, as `FrameBatch`'s are.
func sendClose(on wsi: OpaquePointer, _ code: CloseCode, _ reason: String) {
  let text = Array(reason.utf8.prefix(123))
  LWSRawWrite.send(
    [0x88, UInt8(2 + text.count), UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)], text, on: wsi)
}

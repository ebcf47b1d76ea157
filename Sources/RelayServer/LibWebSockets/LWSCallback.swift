import CLibWebSockets
import RelayCore
import TouchProtocol

/// The one libwebsockets protocol callback: HTTP requests, upgrades and WebSocket events. It
/// turns lws reasons into core events and keeps no state of its own.
func relayCallback(
  _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
  _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
  guard let wsi, let driver = driverOf(wsi) else { return 0 }
  // Whatever this callback made the core ask for is carried out before lws goes on.
  defer { driver.performActions() }
  let core = driver.core
  switch reason {
  case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
    driver.checkReload()
    driver.checkStop()
    return 0

  case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
    // While shutting down, new sockets are refused outright.
    return core.stopping ? 1 : 0

  case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
    // The last chance to answer in plain HTTP: bad paths and session names never upgrade.
    let (path, args) = LWSRequest.target(of: wsi)
    switch RequestTarget.parse(path: path, args: args) {
    case .failure(.notFound):
      return HTTPResponse.notFound.send(on: wsi) ? 1 : -1
    case .failure(.badRequest(let why)):
      return HTTPResponse(status: 400, body: why + "\n").send(on: wsi) ? 1 : -1
    case .success(let target):
      let refusal = core.admit(
        target, address: LWSRequest.peer(of: wsi), token: LWSRequest.token(of: wsi, args: args),
        origin: LWSRequest.header(WSI_TOKEN_ORIGIN, of: wsi), wallClock: WallClock.nowSeconds())
      guard let refusal else { return 0 }
      return refusal.send(on: wsi) ? 1 : -1
    }

  case LWS_CALLBACK_ESTABLISHED:
    let (path, args) = LWSRequest.target(of: wsi)
    guard case .success(let target) = RequestTarget.parse(path: path, args: args) else { return -1 }
    // lws accepts the extension whenever it offers it and the client asks (it then frames
    // and compresses each message itself), so an offer is enough to rule batching out.
    let deflate =
      driver.config.compression
      && LWSRequest.header(WSI_TOKEN_EXTENSIONS, of: wsi)?.contains("permessage-deflate") == true
    // lws creates the compressor at the first write, with the options set by then.
    if deflate {
      _ = lws_set_extension_option(wsi, "permessage-deflate", "mem_level", String(driver.config.deflateMemLevel))
    }
    // The token again, for a signed token's expiry (see `RelayCore.scheduleTokenExpiry`).
    let peer = core.open(
      target, address: LWSRequest.peer(of: wsi), token: LWSRequest.token(of: wsi, args: args),
      wallClock: WallClock.nowSeconds(), at: driver.now())
    let link = LWSPeer(wsi: wsi, peer: peer, batchesWrites: driver.config.writeBatchBytes > 0 && !deflate)
    // The wsi holds the driver's peer until LWS_CALLBACK_CLOSED.
    let handle = Unmanaged.passRetained(link).toOpaque()
    lws_set_opaque_user_data(wsi, handle)
    peer.transport = handle
    return 0

  case LWS_CALLBACK_RECEIVE:
    guard let link = LWSPeer.of(wsi) else { return -1 }
    receive(driver, link, input, len)
    return 0

  case LWS_CALLBACK_SERVER_WRITEABLE:
    guard let link = LWSPeer.of(wsi) else { return 0 }
    return driver.writable(link)

  case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
    guard let link = LWSPeer.of(wsi) else { return 0 }
    // lws answers the close itself; nothing may follow its answer.
    var code: UInt16?
    if let input, len >= 2 {
      let b = input.assumingMemoryBound(to: UInt8.self)
      code = UInt16(b[0]) << 8 | UInt16(b[1])
    }
    core.peerSentClose(link.peer, code: code)
    return 0

  case LWS_CALLBACK_CLOSED:
    if let raw = lws_get_opaque_user_data(wsi) {
      let link = Unmanaged<LWSPeer>.fromOpaque(raw).takeRetainedValue()
      lws_set_opaque_user_data(wsi, nil)
      core.closed(link.peer, at: driver.now())
    }
    return 0

  case LWS_CALLBACK_HTTP:
    let response = driver.routes.respond(to: LWSRequest.request(of: wsi), at: driver.now())
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
  // Once a close is decided, the rest of what the peer sends is ignored.
  guard peer.isOpen else { return }
  let wsi = link.wsi
  if lws_frame_is_binary(wsi) != 0 {
    link.rx = []
    return driver.core.refuse(peer, .binary, at: driver.now())
  }
  let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : len)
  let limit = driver.core.configuration.limits.maxMessageBytes
  // A frame that declares more than the limit (plus slack for deflate's framing) is refused
  // at once, rather than after the peer has sent that much.
  let declared = Int(lws_remaining_packet_payload(wsi))
  guard link.rx.count + chunk.count <= limit, declared <= limit + 1024 else {
    link.rx = []
    return driver.core.refuse(peer, .tooBig, at: driver.now())
  }
  let final = lws_is_final_fragment(wsi) != 0
  if final && link.rx.isEmpty {
    // The common case: a whole message in one chunk, decoded where it lies.
    driver.core.receive(chunk, from: peer, at: driver.now())
  } else {
    link.rx.append(contentsOf: chunk)
    if final {
      link.rx.withUnsafeBytes { driver.core.receive($0, from: peer, at: driver.now()) }
      link.rx.removeAll(keepingCapacity: link.rx.capacity <= 64 * 1024)
    }
  }
}

import CLibWebSockets
import TouchProtocol

/// The one libwebsockets protocol callback: HTTP requests, upgrades and WebSocket events.
/// It translates lws reasons into calls on the `Relay` and keeps no state of its own.
func relayCallback(
  _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
  _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
  guard let wsi, let relay = relayOf(wsi) else { return 0 }
  // Whatever this callback queued for batching peers leaves before lws goes on.
  defer { relay.flushWrites() }
  switch reason {
  case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
    relay.checkReload()
    relay.checkStop()
    return 0

  case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
    // While shutting down, new sockets are refused outright.
    return relay.stopping ? 1 : 0

  case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
    // The last chance to answer in plain HTTP: bad paths and session names never upgrade.
    if relay.stopping {
      return HTTPResponse(status: 503, body: "shutting down\n").send(on: wsi, relay: relay) ? 1 : -1
    }
    let (path, args) = HTTPRequest.target(of: wsi)
    switch RequestTarget.parse(path: path, args: args) {
    case .success(.healthz), .failure(.notFound):
      return HTTPResponse.notFound.send(on: wsi, relay: relay) ? 1 : -1
    case .failure(.badRequest(let why)):
      return HTTPResponse(status: 400, body: why + "\n").send(on: wsi, relay: relay) ? 1 : -1
    case .success(let target):
      let refusal = relay.admit(
        target, peer: HTTPRequest.peer(of: wsi), token: HTTPRequest.token(of: wsi, args: args),
        origin: HTTPRequest.header(WSI_TOKEN_ORIGIN, of: wsi))
      guard let refusal else { return 0 }
      return refusal.send(on: wsi, relay: relay) ? 1 : -1
    }

  case LWS_CALLBACK_ESTABLISHED:
    let (path, args) = HTTPRequest.target(of: wsi)
    guard case .success(let target) = RequestTarget.parse(path: path, args: args), target != .healthz else {
      return -1
    }
    // lws accepts the extension whenever it offers it and the client asks (it then frames
    // and compresses each message itself), so an offer is enough to rule batching out.
    let deflate =
      relay.config.compression
      && HTTPRequest.header(WSI_TOKEN_EXTENSIONS, of: wsi)?.contains("permessage-deflate") == true
    // lws creates the compressor at the first write, with the options set by then.
    if deflate {
      _ = lws_set_extension_option(wsi, "permessage-deflate", "mem_level", String(relay.config.deflateMemLevel))
    }
    let conn = relay.open(wsi: wsi, target: target, peer: HTTPRequest.peer(of: wsi), at: relay.now())
    conn.batchesWrites = relay.config.writeBatchBytes > 0 && !deflate
    return 0

  case LWS_CALLBACK_RECEIVE:
    guard let conn = connection(wsi) else { return -1 }
    return receive(relay, conn, wsi, input, len)

  case LWS_CALLBACK_SERVER_WRITEABLE:
    guard let conn = connection(wsi) else { return 0 }
    return relay.writable(conn, wsi: wsi)

  case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
    guard let conn = connection(wsi) else { return 0 }
    // lws answers the close itself; nothing may follow its answer.
    conn.peerClosed = true
    if let input, len >= 2 {
      let b = input.assumingMemoryBound(to: UInt8.self)
      conn.peerCloseCode = UInt16(b[0]) << 8 | UInt16(b[1])
    }
    return 0

  case LWS_CALLBACK_CLOSED:
    if let conn = connection(wsi) {
      relay.closed(conn, at: relay.now())
      lws_set_opaque_user_data(wsi, nil)
    }
    return 0

  case LWS_CALLBACK_HTTP:
    let (path, args) = HTTPRequest.target(of: wsi)
    let response = HTTPRoutes.respond(to: HTTPRequest(path: path, args: args, wsi: wsi), relay: relay)
    guard response.send(on: wsi, relay: relay) else { return -1 }
    return lws_http_transaction_completed(wsi) != 0 ? -1 : 0

  default:
    return lws_callback_http_dummy(wsi, reason, user, input, len)
  }
}

private func connection(_ wsi: OpaquePointer) -> Connection? {
  guard let raw = lws_get_opaque_user_data(wsi) else { return nil }
  return Unmanaged<Connection>.fromOpaque(raw).takeUnretainedValue()
}

/// Reassembles a message from lws' chunks and enforces the size limit on decompressed bytes.
private func receive(
  _ relay: Relay, _ conn: Connection, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ len: Int
) -> Int32 {
  // Once a close is decided, the rest of what the peer sends is ignored.
  if conn.pendingClose != nil { return 0 }
  if lws_frame_is_binary(wsi) != 0 {
    return refuse(relay, conn, .unsupportedData, "binary frames are not part of touchrelay.v1")
  }
  let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : len)
  let limit = relay.config.limits.maxMessageBytes
  // A frame that declares more than the limit (plus slack for deflate's framing) is refused
  // at once, rather than after the peer has sent that much.
  let declared = Int(lws_remaining_packet_payload(wsi))
  guard conn.rx.count + chunk.count <= limit, declared <= limit + 1024 else {
    return refuse(relay, conn, .messageTooBig, "message larger than \(limit) bytes")
  }
  let final = lws_is_final_fragment(wsi) != 0
  if final && conn.rx.isEmpty {
    // The common case: a whole message in one chunk, decoded where it lies.
    relay.receive(chunk, from: conn, at: relay.now())
  } else {
    conn.rx.append(contentsOf: chunk)
    if final {
      conn.rx.withUnsafeBytes { relay.receive($0, from: conn, at: relay.now()) }
      conn.rx.removeAll(keepingCapacity: conn.rx.capacity <= 64 * 1024)
    }
  }
  return 0
}

/// Closes from the writable callback rather than by returning -1 here: while lws is inflating
/// a permessage-deflate message it does not act on the RECEIVE callback's -1.
private func refuse(_ relay: Relay, _ conn: Connection, _ code: CloseCode, _ reason: String) -> Int32 {
  conn.rx = []
  // Read no more of a peer being closed (bounds the work a compressed flood can cause).
  if let wsi = conn.wsi { lws_rx_flow_control(wsi, 0) }
  relay.close(conn, code, reason, drain: false)
  return 0
}

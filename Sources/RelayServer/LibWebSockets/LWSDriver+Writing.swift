import CLibWebSockets
import RelayCore
import TouchProtocol

/// Writing: a peer's pending messages leave in one `lws_write` where possible.
extension LWSDriver {
  /// Writes a batching peer now, batch after batch, as long as lws holds nothing of it for
  /// later; what is left (or a peer lws still holds bytes for) waits for its writable
  /// callback. Deflate peers and closes go through the writable callback. Called for each
  /// peer the core said has output, when the callback that queued it ends, and by
  /// `flushWrites`.
  func write(_ link: LWSPeer) {
    guard link.write == .idle, !link.peerClosed else { return }
    guard link.batchesWrites, !link.closing else { return requestWrite(link) }
    while lws_partial_buffered(link.wsi) == 0 {
      switch writeBatch(link) {
      case .failed:
        // The socket is broken; lws closes it (LWS_CALLBACK_CLOSED follows).
        lws_set_timeout(link.wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        return
      case .nothing:
        return
      case .close:
        // A close goes out from the writable callback (lws_close_reason, then -1).
        break
      case .wrote(let more):
        // More than one batch was pending: the next, unless the socket is full.
        guard more else { return }
        continue
      }
      break
    }
    link.write = .awaitingWritable
    lws_callback_on_writable(link.wsi)
  }

  /// A batching peer is written when the current callback ends (`flushWrites`) rather than
  /// from a writable callback: that round trip through the event loop cost two `epoll_ctl`
  /// calls and an event per delivery (ARCHITECTURE.md, "Written when the callback ends").
  /// Deflate peers and closes still go through the writable callback.
  func requestWrite(_ link: LWSPeer) {
    guard link.write != .awaitingWritable, !link.peerClosed else { return }
    if link.batchesWrites, !link.closing {
      if link.write == .idle {
        link.write = .queuedForFlush
        toFlush.append(link)
      }
      return
    }
    link.write = .awaitingWritable
    lws_callback_on_writable(link.wsi)
  }

  /// Writes what the callback that is ending queued for batching peers. lws' `lws_write` may
  /// be called outside the peer's own writable callback: what the socket does not take it
  /// keeps (in order) and sends when the socket drains. A peer with such bytes left over
  /// waits for its writable callback, so a slow reader holds at most one batch in lws.
  ///
  /// A frame fanned out to many observers is written to each at once too, as the fastest C
  /// relays on lws do: one `send` per delivery, where the writable callback's round trip cost
  /// two `epoll_ctl` more (ARCHITECTURE.md, "Written when the callback ends").
  func flushWrites() {
    while !toFlush.isEmpty {
      swap(&toFlush, &flushing)
      defer { flushing.removeAll(keepingCapacity: true) }
      for link in flushing {
        guard link.write == .queuedForFlush else { continue }
        link.write = .idle
        write(link)
      }
    }
  }

  /// LWS_CALLBACK_SERVER_WRITEABLE: at most one lws_write per call. Without
  /// permessage-deflate that one write carries every pending message (up to
  /// `writeBatchBytes`) as consecutive frames; with it, lws compresses one message per write.
  /// Once nothing is left, the close the core decided on, if any.
  func writable(_ link: LWSPeer) -> Int32 {
    if link.pingDue {
      // The keep-alive's ping first, alone in this callback (lws takes one write per
      // writable); whatever else is pending goes from the next. Its payload is not empty:
      // lws 4.1 passes an empty pong to no callback (lib/roles/ws/ops-ws.c), and the pong
      // is how the driver hears a silent observer.
      link.pingDue = false
      if !link.closing && !link.peerClosed {
        let pre = Int(tr_lws_pre())
        var frame = [UInt8](repeating: 0, count: pre) + Array("keep-alive".utf8)
        let sent = frame.withUnsafeMutableBufferPointer { b in
          lws_write(link.wsi, b.baseAddress! + pre, b.count - pre, LWS_WRITE_PING)
        }
        if sent < 0 { return -1 }
        lws_callback_on_writable(link.wsi)
        return 0
      }
    }
    link.write = .idle
    link.inFlight = nil
    let more: Bool
    if link.batchesWrites {
      switch writeBatch(link) {
      case .failed: return -1
      case .wrote(let m): more = m
      case .close(let code, let reason): return close(link, code, reason)
      case .nothing: return 0
      }
    } else {
      switch core.nextWrite(for: link.peer) {
      case .message(let m, let rest):
        if writeAlone(m, link) < 0 { return -1 }
        link.inFlight = m
        if config.metrics { recordLatency(nowNanoseconds() - m.createdAt) }
        more = rest
      case .close(let code, let reason): return close(link, code, reason)
      case .nothing: return 0
      }
    }
    if more { requestWrite(link) }
    return 0
  }

  /// The close the core decided on, from the writable callback: lws sends it with this code
  /// and reason when the callback returns -1.
  private func close(_ link: LWSPeer, _ code: CloseCode, _ reason: String) -> Int32 {
    var bytes = Array(reason.utf8.prefix(123))
    lws_close_reason(link.wsi, lws_close_status(UInt32(code.rawValue)), &bytes, bytes.count)
    return -1
  }

  /// One observation of the delivery latency. The histogram is borrowed, not retained and
  /// released around the call (a pair per delivery): the metrics hold it for the server's life.
  @inline(__always)
  private func recordLatency(_ nanoseconds: Int64) {
    Unmanaged.passUnretained(metrics.deliveryLatency)._withUnsafeGuaranteedRef { $0.record(nanoseconds: nanoseconds) }
  }

  enum BatchWrite {
    case nothing
    /// `more`: something (another batch, or the close) is left to write.
    case wrote(more: Bool)
    case failed
    /// Nothing was left but the close: it goes out from the writable callback.
    case close(CloseCode, reason: String)
  }

  /// One message as one WebSocket frame from its own buffer: lws writes the header into the
  /// LWS_PRE bytes in front of the payload (and compresses it, for a deflate peer).
  private func writeAlone(_ m: OutgoingMessage, _ link: LWSPeer) -> Int32 {
    lws_write(
      link.wsi, m.bytes.baseAddress!.advanced(by: m.headroom).assumingMemoryBound(to: UInt8.self),
      m.payloadCount, m.isBinary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT)
  }

  /// Packs the peer's pending messages (up to `writeBatchBytes`) into one `lws_write`. A lone
  /// message (the usual case: one frame's `touches` to each observer) is written from its own
  /// buffer, which has LWS_PRE in front for lws to put the frame header in (the same bytes for
  /// every observer of a fan-out), as the deflate path does: no copy into the batch.
  private func writeBatch(_ link: LWSPeer) -> BatchWrite {
    let message: OutgoingMessage
    var more: Bool
    switch core.nextWrite(for: link.peer) {
    case .nothing: return .nothing
    case .close(let code, let reason):
      link.closing = true
      return .close(code, reason: reason)
    case .message(let m, let rest):
      message = m
      more = rest
    }
    if !more, message.headroom >= headroom {
      if writeAlone(message, link) < 0 { return .failed }
      if config.metrics { recordLatency(nowNanoseconds() - message.createdAt) }
      // lws has sent the bytes or copied what the socket did not take: the buffer is free.
      core.recycle(consume message)
      return .wrote(more: false)
    }
    batch.removeAll()
    defer { batchedSince.removeAllKeepingStorage() }
    var next: OutgoingMessage? = consume message
    while let m = next {
      m.withPayload { batch.appendText($0, binary: m.isBinary) }
      batchedSince.append(m.createdAt)
      next = nil
      if more, batch.byteCount < config.writeBatchBytes {
        switch core.nextWrite(for: link.peer) {
        case .message(let n, let rest):
          next = n
          more = rest
        case .close:
          // Sent after this batch, from the writable callback.
          link.closing = true
        case .nothing:
          more = false
        }
      }
      // Copied into the batch: its buffer is free.
      core.recycle(consume m)
    }
    // LWS_WRITE_HTTP: lws sends the bytes as they are; they are whole frames already.
    if lws_write(link.wsi, batch.frames, batch.byteCount, LWS_WRITE_HTTP) < 0 { return .failed }
    guard config.metrics else { return .wrote(more: more) }
    let now = nowNanoseconds()
    // A frame's `touches` and the gestures it completed share their cause (`createdAt`) and
    // this write: they are one delivery for the latency histogram, not one per message.
    var cause = Int64.min
    for since in batchedSince where since != cause {
      recordLatency(now - since)
      cause = since
    }
    return .wrote(more: more)
  }
}

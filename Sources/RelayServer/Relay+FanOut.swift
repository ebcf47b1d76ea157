import CLibWebSockets
import GestureEngine
import TouchProtocol

/// Fan-out and writing: encode once, queue per peer, one lws_write per writable callback.
extension Relay {
  // MARK: - Fan-out

  func deliver(_ out: EngineOutput, from conn: Connection, origin: Origin) {
    for e in out.errors { sendError(e, to: conn) }
    metrics.gestureEvents += out.events.count
    for event in out.events {
      var o = origin
      o.t = event.t
      broadcastGesture(event, origin: o, in: conn.session)
    }
    if let scene = out.scene { broadcastScene(scene, source: origin.source, origin: origin, in: conn.session) }
  }

  func mirror(_ frame: Frame, origin: Origin, in session: Session) {
    var message: OutgoingMessage?
    for obs in session.observers where obs.filter.raw && obs.filter.wants(source: origin.source) {
      let m =
        message
        ?? OutgoingMessage(
          ServerMessage.touchesJSON(frame, origin: origin, headroom: headroom), headroom: headroom,
          supersedable: true, origin: origin)
      message = m
      enqueue(m, to: obs)
    }
  }

  func broadcastGesture(_ e: GestureEvent, origin: Origin, in session: Session) {
    var message: OutgoingMessage?
    for obs in session.observers where obs.filter.wants(source: origin.source) && obs.filter.wants(e.gesture) {
      let m =
        message
        ?? OutgoingMessage(
          ServerMessage.gestureJSON(e, origin: origin, headroom: headroom), headroom: headroom,
          supersedable: e.state.isSupersedable, origin: origin)
      message = m
      enqueue(m, to: obs)
    }
  }

  /// `origin` is nil for a state no frame caused (a source's first scene).
  func broadcastScene(_ state: JSONValue, source: String, origin: Origin?, in session: Session) {
    var message: OutgoingMessage?
    for obs in session.observers where obs.filter.wants(source: source) {
      let m =
        message
        ?? OutgoingMessage(
          ServerMessage.scene(source: source, state: state, origin: origin, headroom: headroom),
          headroom: headroom, supersedable: true)
      message = m
      enqueue(m, to: obs)
    }
  }

  func broadcastSourceEvent(_ event: String, _ info: SourceInfo, in session: Session) {
    var message: OutgoingMessage?
    for obs in session.observers where obs.filter.wants(source: info.id) {
      let m =
        message
        ?? OutgoingMessage(
          ServerMessage.sourceEvent(event, info, headroom: headroom), headroom: headroom, supersedable: false)
      message = m
      enqueue(m, to: obs)
    }
  }

  func sendError(_ e: ProtocolError, to conn: Connection) {
    conn.errorsSent += 1
    metrics.error(e.code.rawValue)
    // Errors to a peer that does not read may be dropped (and counted), never block it.
    let bytes = ServerMessage.error(e, headroom: headroom)
    enqueue(OutgoingMessage(bytes, headroom: headroom, supersedable: conn.role == .source), to: conn)
    erred(conn, at: now())
  }

  func enqueue(_ m: OutgoingMessage, to conn: Connection) {
    guard !conn.closed, conn.pendingClose == nil else { return }
    if conn.queue.push(m) == .overflow {
      logger.warning(
        "observer too slow, closing", metadata: ["conn": "\(conn.serial)", "queued": "\(conn.queue.count)"])
      close(conn, .policyViolation, "too slow: \(conn.queue.count) undroppable messages pending", drain: false)
      return
    }
    requestWrite(conn)
  }

  /// A batching peer is written at the end of the current callback (`flushWrites`) rather
  /// than from a writable callback: that round trip through the event loop cost two
  /// `epoll_ctl` calls and an event per delivery, about a tenth of the server's CPU under
  /// ingest. Deflate peers and closes still go through the writable callback.
  func requestWrite(_ conn: Connection) {
    guard !conn.writeRequested, !conn.closed, let wsi = conn.wsi else { return }
    if conn.batchesWrites, conn.pendingClose == nil {
      if !conn.flushQueued {
        conn.flushQueued = true
        toFlush.append(conn)
      }
      return
    }
    conn.writeRequested = true
    lws_callback_on_writable(wsi)
  }

  /// Writes what the callback that is ending queued for batching peers. lws' `lws_write` may
  /// be called outside the peer's own writable callback: what the socket does not take it
  /// keeps (in order) and sends when the socket drains. A peer with such bytes left over
  /// waits for its writable callback, so a slow reader holds at most one batch in lws.
  ///
  /// A callback that queued for more than `directWriteLimit` peers (a frame fanned out to
  /// many observers) leaves them to their writable callbacks, as before: written at once, a
  /// busy server would send each frame to each observer separately and fall behind, while
  /// writable callbacks batch whatever piled up meanwhile (measured: fan-out p99 40 ms
  /// became 400-900 ms at 1,000 observers).
  func flushWrites() {
    while !toFlush.isEmpty {
      swap(&toFlush, &flushing)
      defer { flushing.removeAll(keepingCapacity: true) }
      let direct = flushing.count <= Self.directWriteLimit
      for conn in flushing {
        conn.flushQueued = false
        guard !conn.writeRequested, !conn.closed, !conn.peerClosed, let wsi = conn.wsi else { continue }
        guard direct, conn.pendingClose == nil, lws_partial_buffered(wsi) == 0 else {
          conn.writeRequested = true
          lws_callback_on_writable(wsi)
          continue
        }
        switch writeBatch(conn, wsi: wsi) {
        case .failed:
          // The socket is broken; lws closes it (LWS_CALLBACK_CLOSED follows).
          lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        case .wrote:
          if conn.hasPendingOutput { requestWrite(conn) }
        case .nothing:
          break
        }
      }
    }
  }

  /// Closes with `code` once the queue has drained (or at the next writable if `drain` is false).
  func close(_ conn: Connection, _ code: CloseCode, _ reason: String, drain: Bool) {
    guard !conn.closed else { return }
    conn.pendingClose = (code, reason)
    if !drain {
      conn.priority.removeAll()
      conn.queue = ObserverQueue(capacity: 1, hardLimit: 1)
    }
    requestWrite(conn)
  }

  // MARK: - Writing

  /// LWS_CALLBACK_SERVER_WRITEABLE: at most one lws_write per call. Without
  /// permessage-deflate that one write carries every pending message (up to
  /// `writeBatchBytes`) as consecutive frames; with it, lws compresses one message per write.
  func writable(_ conn: Connection, wsi: OpaquePointer) -> Int32 {
    conn.writeRequested = false
    conn.inFlight = nil
    var wrote = false
    if conn.batchesWrites {
      switch writeBatch(conn, wsi: wsi) {
      case .failed: return -1
      case .wrote: wrote = true
      case .nothing: break
      }
    } else if let m = nextMessage(conn) {
      let n = lws_write(
        wsi, m.bytes.baseAddress!.advanced(by: m.headroom).assumingMemoryBound(to: UInt8.self),
        m.payloadCount, LWS_WRITE_TEXT)
      if n < 0 { return -1 }
      conn.inFlight = m
      sent(m, on: conn, at: writeTime())
      wrote = true
    }
    if wrote {
      if conn.hasPendingOutput || conn.pendingClose != nil { requestWrite(conn) }
      return 0
    }
    if let (code, reason) = conn.pendingClose {
      var bytes = Array(reason.utf8.prefix(123))
      lws_close_reason(wsi, lws_close_status(UInt32(code.rawValue)), &bytes, bytes.count)
      return -1
    }
    return 0
  }

  /// See `flushWrites`.
  static let directWriteLimit = 32

  enum BatchWrite { case nothing, wrote, failed }

  /// Packs the peer's pending messages (up to `writeBatchBytes`) into one `lws_write`.
  private func writeBatch(_ conn: Connection, wsi: OpaquePointer) -> BatchWrite {
    batch.removeAll()
    defer { batched.removeAll(keepingCapacity: true) }
    while batch.byteCount < config.writeBatchBytes, let m = nextMessage(conn) {
      m.withPayload { batch.appendText($0) }
      batched.append(m)
    }
    guard batch.frameCount > 0 else { return .nothing }
    // LWS_WRITE_HTTP: lws sends the bytes as they are; they are whole frames already.
    if lws_write(wsi, batch.frames, batch.byteCount, LWS_WRITE_HTTP) < 0 { return .failed }
    let now = writeTime()
    // A frame's `touches` and the gestures it completed share their cause (`createdAt`) and
    // this write: they are one delivery for the latency histogram, not one per message.
    var cause = Int64.min
    for m in batched {
      sent(m, on: conn, at: now, timed: m.createdAt != cause)
      cause = m.createdAt
    }
    return .wrote
  }

  /// When a write happened, for the latency histogram: no clock reading without metrics.
  private func writeTime() -> Int64 { config.metrics ? MonotonicClock.nanoseconds() : 0 }

  /// `now`: when it was written (`writeTime()`; one reading serves a whole batch).
  private func sent(_ m: OutgoingMessage, on conn: Connection, at now: Int64, timed: Bool = true) {
    conn.messagesOut += 1
    metrics.messagesOut += 1
    metrics.bytesOut += m.payloadCount
    if config.metrics && timed { metrics.deliveryLatency.recordNanoseconds(now - m.createdAt) }
  }

  func nextMessage(_ conn: Connection) -> OutgoingMessage? {
    let missed = conn.queue.takeDropped()
    if conn.role == .observer { metrics.droppedForObservers += missed } else { metrics.droppedForSources += missed }
    if missed > 0 {
      // After a gap, a fresh snapshot of every scene the observer follows.
      if conn.role == .observer {
        for s in conn.session.activeSources where conn.filter.wants(source: s.info.id) {
          guard let scene = s.engine.sceneState else { continue }
          let bytes = ServerMessage.scene(
            source: s.info.id, state: scene, origin: s.origin(t: s.lastT, rt: s.lastRT), headroom: headroom)
          conn.priority.append(OutgoingMessage(bytes, headroom: headroom, supersedable: true))
        }
      }
      return OutgoingMessage(
        ServerMessage.dropped(count: missed, headroom: headroom), headroom: headroom, supersedable: false)
    }
    if !conn.priority.isEmpty { return conn.priority.removeFirst() }
    return conn.queue.pop()
  }
}

import TouchProtocol

/// One encoded server message, shared by every observer it is fanned out to. The bytes start
/// with LWS_PRE spare bytes where libwebsockets writes the frame header in place.
final class OutgoingMessage {
  /// Droppable when a full queue needs room: a later message of the same stream supersedes it.
  let supersedable: Bool
  let bytes: UnsafeMutableRawBufferPointer
  let headroom: Int
  /// When the frame or timer that caused it arrived, or else when it was encoded (monotonic
  /// ns): the start of the delivery latency metric.
  let createdAt: Int64

  init(_ encoded: [UInt8], headroom: Int, supersedable: Bool) {
    self.supersedable = supersedable
    self.headroom = headroom
    createdAt = MonotonicClock.nanoseconds()
    bytes = .allocate(byteCount: encoded.count, alignment: 16)
    encoded.withUnsafeBytes { bytes.copyMemory(from: $0) }
  }

  /// Takes the writer's buffer over: no copy. `origin` is what caused it: its `rt` (the same
  /// clock) starts the latency, which spares a clock reading per message on the hot path.
  init(_ writer: consuming JSONWriter, headroom: Int, supersedable: Bool, origin: Origin) {
    self.supersedable = supersedable
    self.headroom = headroom
    createdAt = MonotonicClock.nanoseconds(ms: origin.rt)
    bytes = writer.takeBuffer()
  }

  var payloadCount: Int { bytes.count - headroom }

  func withPayload<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    body(UnsafeRawBufferPointer(rebasing: bytes[headroom...]))
  }

  deinit { bytes.deallocate() }
}

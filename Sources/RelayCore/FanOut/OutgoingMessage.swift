import TouchProtocol

/// One encoded server message, shared by every peer it is fanned out to. The bytes start with
/// `headroom` spare bytes where the driver's library writes the frame header in place.
public final class OutgoingMessage {
  /// Droppable when a full queue needs room: a later message of the same stream supersedes it.
  public let supersedable: Bool
  public let bytes: UnsafeMutableRawBufferPointer
  public let headroom: Int
  /// The server time (in ns) of the frame or timer that caused it, or of the event that made
  /// it: the start of the delivery latency metric.
  public let createdAt: Int64
  /// Bytes, not text: an OSC packet for a `format=tuio` observer.
  public internal(set) var isBinary = false

  /// A copy of `encoded`, made at server time `rt` (ms).
  public init(_ encoded: [UInt8], headroom: Int, supersedable: Bool, at rt: Double) {
    self.supersedable = supersedable
    self.headroom = headroom
    createdAt = Int64(rt * 1_000_000)
    bytes = .allocate(byteCount: encoded.count, alignment: 16)
    encoded.withUnsafeBytes { bytes.copyMemory(from: $0) }
  }

  /// A copy of a message encoded elsewhere (another cluster node), made at server time `rt`.
  public init(copying payload: UnsafeRawBufferPointer, headroom: Int, supersedable: Bool, at rt: Double) {
    self.supersedable = supersedable
    self.headroom = headroom
    createdAt = Int64(rt * 1_000_000)
    bytes = .allocate(byteCount: headroom + payload.count, alignment: 16)
    bytes.initializeMemory(as: UInt8.self, repeating: 0)
    if !payload.isEmpty { UnsafeMutableRawBufferPointer(rebasing: bytes[headroom...]).copyMemory(from: payload) }
  }

  /// Takes the writer's buffer over: no copy. `origin` is what caused it.
  init(_ writer: consuming JSONWriter, headroom: Int, supersedable: Bool, origin: Origin) {
    self.supersedable = supersedable
    self.headroom = headroom
    createdAt = Int64(origin.rt * 1_000_000)
    bytes = writer.takeBuffer()
  }

  public var payloadCount: Int { bytes.count - headroom }

  public func withPayload<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    body(UnsafeRawBufferPointer(rebasing: bytes[headroom...]))
  }

  /// The payload as text (tests and replay).
  public var text: String { withPayload { String(decoding: $0, as: UTF8.self) } }

  deinit { bytes.deallocate() }
}

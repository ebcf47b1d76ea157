import TouchProtocol

/// One encoded server message, shared by every peer it is fanned out to. The bytes start with
/// `headroom` spare bytes where the driver's library writes the frame header in place.
public final class OutgoingMessage {
  /// Droppable when a full queue needs room: a later message of the same stream supersedes it.
  public private(set) var supersedable: Bool
  public private(set) var bytes: UnsafeMutableRawBufferPointer
  public private(set) var headroom: Int
  /// The server time (in ns) of the frame or timer that caused it, or of the event that made
  /// it: the start of the delivery latency metric.
  public private(set) var createdAt: Int64
  /// Bytes, not text: an OSC packet for a `format=tuio` observer.
  public internal(set) var isBinary = false
  /// The size of the buffer `bytes` starts, which may be more than they use: what a message
  /// written over this one (`rewrite`) has room for before its writer grows it.
  private(set) var storageCapacity: Int

  /// A copy of `encoded`, made at server time `rt` (ms).
  public init(_ encoded: [UInt8], headroom: Int, supersedable: Bool, at rt: Double) {
    self.supersedable = supersedable
    self.headroom = headroom
    createdAt = Int64(rt * 1_000_000)
    bytes = .allocate(byteCount: encoded.count, alignment: 16)
    storageCapacity = encoded.count
    encoded.withUnsafeBytes { bytes.copyMemory(from: $0) }
  }

  /// A copy of a message encoded elsewhere (another cluster node), made at server time `rt`.
  public init(copying payload: UnsafeRawBufferPointer, headroom: Int, supersedable: Bool, at rt: Double) {
    self.supersedable = supersedable
    self.headroom = headroom
    createdAt = Int64(rt * 1_000_000)
    bytes = .allocate(byteCount: headroom + payload.count, alignment: 16)
    storageCapacity = bytes.count
    bytes.initializeMemory(as: UInt8.self, repeating: 0)
    if !payload.isEmpty { UnsafeMutableRawBufferPointer(rebasing: bytes[headroom...]).copyMemory(from: payload) }
  }

  /// A message `write` writes, in a new buffer of `capacity` bytes after `headroom` (grown if
  /// it needs more), made at server time `createdAt` (ns).
  init(
    headroom: Int, capacity: Int, supersedable: Bool, createdAt: Int64, _ write: (inout JSONWriter) -> Void
  ) {
    var w = JSONWriter(headroom: headroom, capacity: capacity)
    write(&w)
    self.supersedable = supersedable
    self.headroom = headroom
    self.createdAt = createdAt
    (bytes, storageCapacity) = w.takeStorage()
  }

  /// Makes this the message `write` writes, in this one's buffer (grown if it needs more). Only
  /// for a message nothing else refers to: the pool's (`MessagePool`).
  func rewrite(headroom: Int, supersedable: Bool, createdAt: Int64, _ write: (inout JSONWriter) -> Void) {
    var w = JSONWriter(reusing: bytes.baseAddress.unsafelyUnwrapped, capacity: storageCapacity, headroom: headroom)
    write(&w)
    (bytes, storageCapacity) = w.takeStorage()
    self.supersedable = supersedable
    self.headroom = headroom
    self.createdAt = createdAt
    isBinary = false
  }

  public var payloadCount: Int { bytes.count - headroom }

  public func withPayload<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    body(UnsafeRawBufferPointer(rebasing: bytes[headroom...]))
  }

  /// The payload as text (tests and replay).
  public var text: String { withPayload { String(decoding: $0, as: UTF8.self) } }

  deinit { bytes.deallocate() }
}

extension Origin {
  /// The server time (ns) of the frame: when a message it caused was made, for the latency
  /// metric.
  var createdAt: Int64 { Int64(rt * 1_000_000) }
}

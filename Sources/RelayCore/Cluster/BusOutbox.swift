import TouchProtocol

/// The records a node has for the bus since the driver last took them: one data message,
/// published once per loop iteration at most.
struct BusOutbox {
  private var writer = BusWriter()
  private var countOffset = 0
  private(set) var records = 0
  let node: String
  let epoch: UInt64

  init(node: String, epoch: UInt64) {
    self.node = node
    self.epoch = epoch
  }

  var isEmpty: Bool { records == 0 }
  /// Bytes waiting to be taken: none once `take` has handed them over (the writer keeps its
  /// bytes until the next record begins a new message).
  var byteCount: Int { records == 0 ? 0 : writer.count }

  private mutating func beginIfNeeded() {
    guard records == 0 else { return }
    writer.removeAll()
    writer.u8(UInt8(ascii: "T"))
    writer.u8(UInt8(ascii: "R"))
    writer.u8(UInt8(ascii: "B"))
    writer.u8(UInt8(ascii: "1"))
    writer.name(node)
    writer.u64(epoch)
    countOffset = writer.count
    writer.u32(0)
  }

  /// Appends one record; the payloads are copied.
  mutating func append(
    _ kind: BusRecordKind, supersedable: Bool, session: String, source: String, stream: UInt64 = 0,
    sessionSeq: UInt64 = 0, origin: Origin?,
    gesture: GestureEvent? = nil, arg: String = "", payload: UnsafeRawBufferPointer, extra: UnsafeRawBufferPointer
  ) {
    beginIfNeeded()
    writer.u8(kind.rawValue)
    writer.u8(supersedable ? 1 : 0)
    writer.name(session)
    writer.name(source)
    writer.u64(stream)
    writer.u64(sessionSeq)
    writer.i64(origin?.seq ?? 0)
    writer.f64(origin?.t ?? 0)
    writer.f64(origin?.rt ?? 0)
    if kind == .gesture {
      let e = gesture ?? GestureEvent(id: 0, gesture: .tap, state: .recognized, t: 0, x: 0, y: 0, touches: 0)
      writer.u8(UInt8(GestureKind.allCases.firstIndex(of: e.gesture) ?? 0))
      writer.u8(UInt8(GestureState.allCases.firstIndex(of: e.state) ?? 0))
      writer.i64(Int64(e.id))
      writer.f64(e.x.isFinite ? e.x : 0)
      writer.f64(e.y.isFinite ? e.y : 0)
    }
    writer.name(arg)
    writer.payload(payload)
    writer.payload(extra)
    records += 1
  }

  /// The data message with every record appended since the last call, or nil if none.
  mutating func take() -> [UInt8]? {
    guard records > 0 else { return nil }
    writer.patchU32(UInt32(records), at: countOffset)
    records = 0
    return writer.bytes
  }
}

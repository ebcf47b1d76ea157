/// Writes OSC 1.0 messages and bundles (big-endian, every field padded to 4 bytes). Appends to
/// a byte array so a caller can reuse one buffer, or leave room in front of it (libwebsockets'
/// `LWS_PRE`).
public struct OSCEncoder {
  public private(set) var bytes: [UInt8]
  /// Where the packet starts in `bytes` (after the prefix): alignment counts from here.
  private let base: Int

  public init(reservingCapacity n: Int = 256, prefix: Int = 0) {
    base = prefix
    bytes = []
    bytes.reserveCapacity(n + prefix)
    bytes.append(contentsOf: repeatElement(0, count: prefix))
  }

  public mutating func append(_ packet: OSCPacket) {
    switch packet {
    case .message(let m): append(m)
    case .bundle(let b): append(b)
    }
  }

  public mutating func append(_ bundle: OSCBundle) {
    string("#bundle")
    uint64(bundle.timeTag)
    for m in bundle.messages {
      let sizeAt = bytes.count
      uint32(0)
      append(m)
      let size = UInt32(bytes.count - sizeAt - 4)
      for i in 0..<4 { bytes[sizeAt + i] = UInt8(truncatingIfNeeded: size >> (24 - 8 * i)) }
    }
  }

  public mutating func append(_ message: OSCMessage) {
    string(message.address)
    bytes.append(UInt8(ascii: ","))
    for a in message.arguments { bytes.append(a.tag) }
    terminate()
    for a in message.arguments {
      switch a {
      case .int32(let v): uint32(UInt32(bitPattern: v))
      case .float32(let v): uint32(v.bitPattern)
      case .string(let s): string(s)
      case .blob(let b):
        uint32(UInt32(b.count))
        bytes.append(contentsOf: b)
        pad()
      case .int64(let v): uint64(UInt64(bitPattern: v))
      case .double(let v): uint64(v.bitPattern)
      case .timeTag(let v): uint64(v)
      case .bool, .null: break
      }
    }
  }

  /// A whole packet's bytes.
  public static func encode(_ packet: OSCPacket) -> [UInt8] {
    var e = OSCEncoder()
    e.append(packet)
    return e.bytes
  }

  private mutating func uint32(_ v: UInt32) {
    bytes.append(UInt8(truncatingIfNeeded: v >> 24))
    bytes.append(UInt8(truncatingIfNeeded: v >> 16))
    bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    bytes.append(UInt8(truncatingIfNeeded: v))
  }

  private mutating func uint64(_ v: UInt64) {
    uint32(UInt32(truncatingIfNeeded: v >> 32))
    uint32(UInt32(truncatingIfNeeded: v))
  }

  /// OSC strings hold no NUL: one inside `s` would end it early, so it ends there.
  private mutating func string(_ s: String) {
    for b in s.utf8 {
      if b == 0 { break }
      bytes.append(b)
    }
    terminate()
  }

  /// The NUL after a string and the padding to the next multiple of 4 from the packet's start.
  private mutating func terminate() {
    bytes.append(0)
    pad()
  }

  private mutating func pad() {
    while (bytes.count - base) % 4 != 0 { bytes.append(0) }
  }
}

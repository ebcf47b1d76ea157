/// Reads OSC 1.0 packets strictly: every field within the bytes and 4-byte aligned, a type tag
/// string, only the tags `OSCArgument` has, finite numbers, no bundle inside a bundle, nothing
/// left over. Anything else is an `OSCError`, never a trap: the input is a datagram anyone on
/// the network may send.
public enum OSCDecoder {
  /// The largest number of arguments one message may have (a TUIO `alive` lists one per
  /// finger; a datagram's 64 KiB bound them anyway, this bounds the array made for them).
  public static let maxArguments = 1024

  public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<OSCPacket, OSCError> {
    var r = Reader(bytes: bytes, at: 0, end: bytes.count)
    do throws(OSCError) {
      if bytes.first == UInt8(ascii: "#") {
        return .success(.bundle(try bundle(&r)))
      }
      return .success(.message(try message(&r)))
    } catch {
      return .failure(error)
    }
  }

  public static func decode(_ bytes: [UInt8]) -> Result<OSCPacket, OSCError> {
    bytes.withUnsafeBytes { decode($0) }
  }

  private static func bundle(_ r: inout Reader) throws(OSCError) -> OSCBundle {
    let head = try r.string()
    guard head == "#bundle" else { throw OSCError(.badString, "a packet starting with '#' must be '#bundle'") }
    let timeTag = try r.uint64()
    var messages: [OSCMessage] = []
    while r.at < r.end {
      let size = Int(try r.uint32())
      guard size > 0, size % 4 == 0 else { throw OSCError(.badSize, "bundle element size \(size) at \(r.at - 4)") }
      guard size <= r.end - r.at else {
        throw OSCError(.truncated, "bundle element of \(size) bytes at \(r.at - 4), \(r.end - r.at) left")
      }
      var element = Reader(bytes: r.bytes, at: r.at, end: r.at + size)
      if r.bytes[r.at] == UInt8(ascii: "#") {
        throw OSCError(.nestedBundle, "bundle element at \(r.at - 4) is a bundle")
      }
      messages.append(try message(&element))
      r.at += size
    }
    return OSCBundle(timeTag: timeTag, messages: messages)
  }

  private static func message(_ r: inout Reader) throws(OSCError) -> OSCMessage {
    let address = try r.string()
    guard address.first == "/" else { throw OSCError(.badString, "address must start with '/'") }
    guard r.at < r.end, r.bytes[r.at] == UInt8(ascii: ",") else {
      throw OSCError(.badTypeTag, "no type tag string after '\(address.prefix(64))'")
    }
    let tagStart = r.at + 1
    let tagsEnd = try r.skipString()
    let count = tagsEnd - tagStart
    guard count <= maxArguments else { throw OSCError(.badTypeTag, "\(count) arguments, more than \(maxArguments)") }
    var arguments: [OSCArgument] = []
    arguments.reserveCapacity(count)
    for i in tagStart..<tagsEnd {
      arguments.append(try argument(tag: r.bytes[i], &r))
    }
    guard r.at == r.end else { throw OSCError(.badSize, "\(r.end - r.at) bytes after the last argument") }
    return OSCMessage(address, arguments)
  }

  private static func argument(tag: UInt8, _ r: inout Reader) throws(OSCError) -> OSCArgument {
    switch tag {
    case UInt8(ascii: "i"): return .int32(Int32(bitPattern: try r.uint32()))
    case UInt8(ascii: "h"): return .int64(Int64(bitPattern: try r.uint64()))
    case UInt8(ascii: "f"):
      let v = Float(bitPattern: try r.uint32())
      guard v.isFinite else { throw OSCError(.nonFinite, "float argument at \(r.at - 4) is \(v)") }
      return .float32(v)
    case UInt8(ascii: "d"):
      let v = Double(bitPattern: try r.uint64())
      guard v.isFinite else { throw OSCError(.nonFinite, "double argument at \(r.at - 8) is \(v)") }
      return .double(v)
    case UInt8(ascii: "t"): return .timeTag(try r.uint64())
    case UInt8(ascii: "s"): return .string(try r.string())
    case UInt8(ascii: "b"):
      let size = Int(try r.uint32())
      let padded = (size + 3) & ~3
      guard padded <= r.end - r.at else { throw OSCError(.truncated, "blob of \(size) bytes at \(r.at - 4)") }
      let blob = Array(UnsafeRawBufferPointer(rebasing: r.bytes[r.at..<(r.at + size)]))
      r.at += padded
      return .blob(blob)
    case UInt8(ascii: "T"): return .bool(true)
    case UInt8(ascii: "F"): return .bool(false)
    case UInt8(ascii: "N"): return .null
    default:
      let shown = tag >= 0x20 && tag < 0x7F ? String(UnicodeScalar(tag)) : "0x\(String(tag, radix: 16))"
      throw OSCError(.badTypeTag, "type tag '\(shown)' is not read")
    }
  }

  /// A cursor over the packet (or one bundle element: `end`).
  private struct Reader {
    let bytes: UnsafeRawBufferPointer
    var at: Int
    let end: Int

    mutating func uint32() throws(OSCError) -> UInt32 {
      guard end - at >= 4 else { throw OSCError(.truncated, "4 bytes wanted at \(at), \(end - at) left") }
      var v: UInt32 = 0
      for i in 0..<4 { v = v << 8 | UInt32(bytes[at + i]) }
      at += 4
      return v
    }

    mutating func uint64() throws(OSCError) -> UInt64 {
      let hi = UInt64(try uint32())
      return hi << 32 | UInt64(try uint32())
    }

    /// Moves past a NUL-terminated, 4-byte padded string; returns where its NUL is.
    mutating func skipString() throws(OSCError) -> Int {
      var nul = at
      while nul < end && bytes[nul] != 0 { nul += 1 }
      guard nul < end else { throw OSCError(.truncated, "string at \(at) has no terminating NUL") }
      let next = (nul + 4) & ~3
      guard next <= end else { throw OSCError(.truncated, "string at \(at) lacks its padding") }
      at = next
      return nul
    }

    mutating func string() throws(OSCError) -> String {
      let start = at
      let nul = try skipString()
      let text = UnsafeRawBufferPointer(rebasing: bytes[start..<nul])
      guard let s = String(validating: text, as: UTF8.self) else {
        throw OSCError(.badString, "string at \(start) is not UTF-8")
      }
      return s
    }
  }
}

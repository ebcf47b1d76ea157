/// Several server-to-client WebSocket text frames packed back to back in one buffer, so that
/// one `lws_write` (one send(2)) carries all of an observer's pending messages. On this VM
/// the kernel's cost per send dominates the server's cost per message; a frame and the
/// gesture it completes now leave in one send instead of two.
///
/// Server frames are unmasked (RFC 6455 §5.1), so each frame is a 2, 4 or 10 byte header
/// and the payload. The buffer keeps `headroom` spare bytes in front (LWS_PRE) like every
/// buffer handed to lws. It is reused for every connection: lws copies whatever a partial
/// send leaves over into the connection's own list before `lws_write` returns.
final class FrameBatch {
  let headroom: Int
  private var storage: UnsafeMutableRawBufferPointer
  /// Bytes of frames after the headroom.
  private(set) var byteCount = 0
  private(set) var frameCount = 0

  init(headroom: Int, capacity: Int = 64 * 1024) {
    self.headroom = headroom
    storage = .allocate(byteCount: headroom + max(capacity, 16), alignment: 16)
  }

  deinit { storage.deallocate() }

  func removeAll() {
    byteCount = 0
    frameCount = 0
  }

  /// The frames, for `lws_write`; valid until the next `appendText` or `removeAll`.
  var frames: UnsafeMutablePointer<UInt8> {
    storage.baseAddress!.advanced(by: headroom).assumingMemoryBound(to: UInt8.self)
  }

  /// Appends one final (FIN) text frame carrying `payload` (binary: a binary frame, for
  /// `format=tuio`'s OSC packets).
  func appendText(_ payload: UnsafeRawBufferPointer, binary: Bool = false) {
    let n = payload.count
    let header = n < 126 ? 2 : n <= 0xFFFF ? 4 : 10
    reserve(header + n)
    var p = storage.baseAddress!.advanced(by: headroom + byteCount)
    p.storeBytes(of: binary ? 0x82 : 0x81, as: UInt8.self)  // FIN | text (binary)
    switch header {
    case 2:
      p.storeBytes(of: UInt8(n), toByteOffset: 1, as: UInt8.self)
    case 4:
      p.storeBytes(of: 126, toByteOffset: 1, as: UInt8.self)
      p.storeBytes(of: UInt16(n).bigEndian, toByteOffset: 2, as: UInt16.self)
    default:
      p.storeBytes(of: 127, toByteOffset: 1, as: UInt8.self)
      p.storeBytes(of: UInt64(n).bigEndian, toByteOffset: 2, as: UInt64.self)
    }
    p += header
    if n > 0 { p.copyMemory(from: payload.baseAddress!, byteCount: n) }
    byteCount += header + n
    frameCount += 1
  }

  private func reserve(_ extra: Int) {
    let needed = headroom + byteCount + extra
    guard needed > storage.count else { return }
    let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(needed, storage.count * 2), alignment: 16)
    grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[..<(headroom + byteCount)]))
    storage.deallocate()
    storage = grown
  }
}

import CLibWebSockets

/// Bytes handed to lws to send as they are (`LWS_WRITE_HTTP`): a whole HTTP answer, or a
/// WebSocket frame the driver built itself. lws wants `LWS_PRE` spare bytes in front.
enum LWSRawWrite {
  /// False if the connection failed.
  @discardableResult
  static func send(_ parts: [UInt8]..., on wsi: OpaquePointer) -> Bool {
    let headroom = Int(tr_lws_pre())
    var buffer = [UInt8](repeating: 0, count: headroom)
    for part in parts { buffer.append(contentsOf: part) }
    let count = buffer.count - headroom
    return buffer.withUnsafeMutableBytes { raw in
      let p = raw.baseAddress!.advanced(by: headroom).assumingMemoryBound(to: UInt8.self)
      return lws_write(wsi, p, count, LWS_WRITE_HTTP) >= 0
    }
  }
}

import Foundation
import NIOCore
import TouchProtocol

/// Encoders for what a client sends (the server's side only decodes these).
public enum ClientMessageEncoder {
  public static func frame(_ frame: Frame) -> [UInt8] {
    var w = JSONWriter(capacity: 48 + 72 * frame.touches.count)
    write(frame, &w)
    return w.bytes
  }

  public static func frame(_ frame: Frame, into buffer: inout ByteBuffer) {
    var w = JSONWriter(capacity: 48 + 72 * frame.touches.count)
    write(frame, &w)
    w.withUnsafeBytes { _ = buffer.writeBytes($0) }
  }

  /// A `frames` message: several samples, oldest first.
  public static func frames(_ frames: [Frame]) -> [UInt8] {
    var w = JSONWriter(capacity: 32 + frames.reduce(0) { $0 + 40 + 72 * $1.touches.count })
    write(frames, &w)
    return w.bytes
  }

  public static func frames(_ frames: [Frame], into buffer: inout ByteBuffer) {
    var w = JSONWriter(capacity: 32 + frames.reduce(0) { $0 + 40 + 72 * $1.touches.count })
    write(frames, &w)
    w.withUnsafeBytes { _ = buffer.writeBytes($0) }
  }

  private static func write(_ frame: Frame, _ w: inout JSONWriter) {
    w.beginObject()
    w.key("type")
    w.string("frame")
    writeBody(frame, &w)
    w.endObject()
  }

  private static func write(_ frames: [Frame], _ w: inout JSONWriter) {
    w.beginObject()
    w.key("type")
    w.string("frames")
    w.key("frames")
    w.beginArray()
    for frame in frames {
      w.beginObject()
      writeBody(frame, &w)
      w.endObject()
    }
    w.endArray()
    w.endObject()
  }

  /// A frame's members but `type`: a `frame` message's, or one sample of `frames`.
  private static func writeBody(_ frame: Frame, _ w: inout JSONWriter) {
    w.key("seq")
    w.int(frame.seq)
    w.key("t")
    w.number(frame.t)
    w.key("touches")
    ServerMessage.write(frame.touches, &w)
  }

  /// `hello` through Foundation: rare, and Hello is Codable (nil fields are left out).
  public static func hello(_ hello: Hello) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let body = (try? encoder.encode(hello)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    // Splice the type in front of the Codable members.
    return body == "{}" ? #"{"type":"hello"}"# : #"{"type":"hello","# + body.dropFirst()
  }

  public static func control(_ control: Control) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let body = (try? encoder.encode(control)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    return body == "{}" ? #"{"type":"control"}"# : #"{"type":"control","# + body.dropFirst()
  }
}

extension WebSocketConnection {
  public func send(hello: Hello) async throws {
    try await send(text: ClientMessageEncoder.hello(hello))
  }

  public func send(frame: Frame) async throws {
    try await send(text: ClientMessageEncoder.frame(frame))
  }
}

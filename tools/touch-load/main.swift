import NIOCore
import NIOWebSocket
import TouchProtocol
import TouchRelayClient

// Temporary self-check of TouchRelayClient against /tmp/selfcheck/echo.py.
let base = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "ws://127.0.0.1:18765"
func check(_ ok: Bool, _ what: String) {
  print(ok ? "ok   " : "FAIL ", what)
}
do {
  let c = try await WebSocketConnection.connect(base + "/ws/s1?raw=1")
  check(c.negotiatedProtocol == "touchrelay.v1", "subprotocol \(c.negotiatedProtocol ?? "nil")")
  let w = try await c.nextJSON(type: "welcome")
  check(w["path"]?.stringValue == "/ws/s1?raw=1", "welcome \(w.jsonString)")
  try await c.send(text: #"{"type":"echo","v":1.5}"#)
  let e = try await c.nextJSON()
  check(e["v"]?.doubleValue == 1.5, "echo \(e.jsonString)")
  try await c.sendFragmented(
    text: #"{"type":"fragged","s":"héllo wörld"}"#, fragments: 5,
    between: WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "x")))
  let pong = try await c.next()
  check(pong == .pong(Array("x".utf8)), "pong between fragments \(pong)")
  let f = try await c.nextJSON(type: "fragged")
  check(f["s"]?.stringValue == "héllo wörld", "reassembled by server \(f.jsonString)")
  try await c.send(text: "fragments")
  let g = try await c.nextJSON(type: "frag")
  check(g["a"] == .array([.number(1), .bool(true), .null, .string("x")]), "reassembled from server \(g.jsonString)")
  try await c.send(text: "ping-me")
  let p = try await c.nextJSON(type: "pinged")
  check(p["type"]?.stringValue == "pinged", "server ping answered")
  try await c.send(frame: Frame(seq: 1, t: 2.5, touches: [TouchPoint(id: 1, phase: .began, x: 1, y: 2.25)]))
  let fr = try await c.nextJSON(type: "frame")
  check(fr["touches"]?[0]?["y"]?.doubleValue == 2.25, "frame encoder \(fr.jsonString)")
  try await c.send(hello: Hello(device: Device(name: "Pixel", width: 412, height: 915)))
  let h = try await c.nextJSON(type: "hello")
  check(h["device"]?["width"]?.intValue == 412, "hello encoder \(h.jsonString)")
  do {
    _ = try await c.next(timeout: .milliseconds(200))
    check(false, "timeout")
  } catch WebSocketClientError.timeout {
    check(true, "timeout")
  }
  try await c.send(text: "close-1009")
  let cl = try await c.expectClose()
  check(cl.code == 1009 && c.serverClose?.code == 1009, "close code \(cl)")
  do {
    _ = try await c.next()
    check(false, "closed after close")
  } catch WebSocketClientError.closed(let code, _) {
    check(code == 1009, "closed after close")
  }

  do {
    _ = try await WebSocketConnection.connect(base + "/bad/x y")
    check(false, "refused")
  } catch let e as WebSocketClientError {
    check(e.refusedStatus == 400, "refused: \(e)")
  }
  do {
    _ = try await WebSocketConnection.connect(base + "/nope")
    check(false, "404")
  } catch let e as WebSocketClientError {
    check(e.refusedStatus == 404, "404: \(e)")
  }
  let r = try await HTTPClient.get(base.replacingOccurrences(of: "ws:", with: "http:") + "/healthz")
  check(r.status == 200 && r.text == #"{"ok":true}"#, "GET healthz \(r.status) \(r.text)")
  let r2 = try await HTTPClient.get(base.replacingOccurrences(of: "ws:", with: "http:") + "/zzz")
  check(r2.status == 404, "GET 404 \(r2.status)")

  var noProto = WebSocketConfiguration()
  noProto.subprotocols = []
  let c2 = try await WebSocketConnection.connect(base + "/ws/two", configuration: noProto)
  check(c2.negotiatedProtocol == nil, "no subprotocol")
  try await c2.pauseReading()
  try await c2.send(text: "burst")
  try await Task.sleep(for: .milliseconds(500))
  check(c2.pendingMessages == 0, "paused: \(c2.pendingMessages) pending")
  try await c2.resumeReading()
  var n = 0
  while true {
    let m = try await c2.nextJSON(timeout: .seconds(10))
    if m["type"]?.stringValue == "n" {
      n += 1
      if m["seq"]?.intValue == 19999 { break }
    }
  }
  check(n == 20000, "burst after resume \(n)")
  await c2.close()
  check(!c2.isActive, "closed by client")

  let counter = Counter()
  let c3 = try await WebSocketConnection.connect(base + "/ws/three") { event in
    if case .text = event { counter.add() }
  }
  var buf = ByteBuffer(string: "burst")
  c3.sendText(buf)
  buf = ByteBuffer(string: "x")
  try await Task.sleep(for: .seconds(2))
  check(counter.value == 20001, "callback mode \(counter.value)")
  await c3.close()
} catch {
  print("FAIL error", error)
}

final class Counter: @unchecked Sendable {
  var n = 0
  let lock = NSLockish()
  func add() { lock.run { n += 1 } }
  var value: Int { lock.run { n } }
}
import Foundation
final class NSLockish: @unchecked Sendable {
  let l = NSLock()
  func run<R>(_ f: () -> R) -> R {
    l.lock()
    defer { l.unlock() }
    return f()
  }
}

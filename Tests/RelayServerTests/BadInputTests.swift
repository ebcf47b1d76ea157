import Foundation
import NIOCore
import NIOWebSocket
import Testing
import TouchProtocol
import TouchRelayClient

/// Every bad input gets its documented answer, the connection survives where the protocol
/// says so, and nobody else notices.
@Suite struct BadInputTests {
  /// Sends `bad` and expects `error` with `code`, then proves the source still works.
  func expectError(_ code: String, for bad: String, afterHello: Bool = true) async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("bad", query: "raw=1")
    let src: WebSocketConnection
    if afterHello {
      (src, _) = try await relay.source("bad")
      try await src.send(text: frameText(1, t: 100, [(1, "began", 1, 1)]))
      #expect(try await watcher.nextJSON(type: "touches")["seq"]?.intValue == 1)
    } else {
      src = try await WebSocketConnection.connect(relay.url("/v1/source/bad"))
    }
    try await src.send(text: bad)
    let error = try await src.nextJSON(type: "error")
    #expect(error["code"]?.stringValue == code, "\(bad) -> \(error.jsonString)")
    #expect(error["message"]?.stringValue?.isEmpty == false)
    if afterHello {
      // Still open, and the state was not disturbed: the next good frame goes through.
      try await src.send(text: frameText(2, t: 110, [(1, "moved", 2, 2)]))
      let m = try await watcher.nextJSON(type: "touches")
      #expect(m["seq"]?.intValue == 2)
    }
  }

  @Test(arguments: [
    ("bad_json", "this is not json"),
    ("bad_json", #"{"type":"frame","seq":2,"t":110,"touches":[}"#),
    ("bad_json", "[1,2,3]"),
    ("unknown_type", #"{"type":"teleport"}"#),
    ("missing_field", #"{"type":"frame","seq":2,"touches":[]}"#),
    ("missing_field", #"{"type":"frame","seq":2,"t":110,"touches":[{"id":1,"x":1,"y":1}]}"#),
    ("wrong_type", #"{"type":"frame","seq":"2","t":110,"touches":[]}"#),
    ("wrong_type", #"{"type":"frame","seq":2,"t":110,"touches":[{"id":1,"phase":"moved","x":"1","y":1}]}"#),
    ("non_finite", #"{"type":"frame","seq":2,"t":110,"touches":[{"id":1,"phase":"moved","x":NaN,"y":1}]}"#),
    ("non_finite", #"{"type":"frame","seq":2,"t":110,"touches":[{"id":1,"phase":"moved","x":1,"y":-Infinity}]}"#),
    ("non_finite", #"{"type":"frame","seq":2,"t":1e999,"touches":[]}"#),
    ("unknown_phase", #"{"type":"frame","seq":2,"t":110,"touches":[{"id":1,"phase":"hovering","x":1,"y":1}]}"#),
    ("seq_not_increasing", #"{"type":"frame","seq":1,"t":110,"touches":[{"id":1,"phase":"moved","x":1,"y":1}]}"#),
    ("time_backwards", #"{"type":"frame","seq":2,"t":50,"touches":[{"id":1,"phase":"moved","x":1,"y":1}]}"#),
    (
      "duplicate_touch_id",
      #"{"type":"frame","seq":2,"t":110,"touches":[{"id":1,"phase":"moved","x":1,"y":1},{"id":1,"phase":"moved","x":2,"y":2}]}"#
    ),
    ("bad_value", #"{"type":"hello","device":{"name":"x","width":-5,"height":10}}"#),
    ("bad_value", #"{"type":"hello","device":{"name":"x","width":5,"height":10},"config":{"preset":"windows"}}"#),
    ("unknown_scene", #"{"type":"hello","device":{"name":"x","width":5,"height":10},"scene":"tetris"}"#),
    ("non_finite", #"{"type":"hello","device":{"name":"x","width":1e400,"height":10}}"#),
  ])
  func refusedMessageKeepsTheConnection(code: String, bad: String) async throws {
    try await expectError(code, for: bad)
  }

  @Test func frameBeforeHello() async throws {
    try await expectError("no_hello", for: frameText(1, t: 0, [(1, "began", 1, 1)]), afterHello: false)
  }

  @Test func errorsCarryTheOffendingSeq() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (src, _) = try await relay.source("seq")
    try await src.send(text: frameText(5, t: 10, []))
    try await src.send(text: frameText(4, t: 20, []))
    let e = try await src.nextJSON(type: "error")
    #expect(e["code"]?.stringValue == "seq_not_increasing")
    #expect(e["seq"]?.intValue == 4)
  }

  @Test func observerMaySendNoSourceMessages() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (obs, _) = try await relay.observer("o")
    try await obs.send(text: #"{"type":"hello","device":{"name":"x","width":1,"height":1}}"#)
    #expect(try await obs.nextErrorCode() == "not_allowed")
    try await obs.send(text: frameText(1, t: 0, []))
    #expect(try await obs.nextErrorCode() == "not_allowed")
    try await obs.send(text: "nope")
    #expect(try await obs.nextErrorCode() == "bad_json")
  }

  @Test func oversizeMessageClosesWith1009() async throws {
    let relay = try TestRelay { $0.limits.maxMessageBytes = 1024 }
    defer { relay.stop() }
    let (src, _) = try await relay.source("big")
    try await src.send(text: #"{"type":"frame","pad":""# + String(repeating: "x", count: 2000) + #""}"#)
    let (code, _) = try await src.expectClose()
    #expect(code == 1009)
  }

  @Test func oversizeCountsAcrossFragments() async throws {
    let relay = try TestRelay { $0.limits.maxMessageBytes = 1024 }
    defer { relay.stop() }
    let (src, _) = try await relay.source("frag")
    let text = Array((#"{"type":"frame","pad":""# + String(repeating: "y", count: 3000) + #""}"#).utf8)
    var frames: [WebSocketFrame] = []
    for (i, start) in stride(from: 0, to: text.count, by: 100).enumerated() {
      let chunk = text[start..<min(start + 100, text.count)]
      frames.append(
        WebSocketFrame(
          fin: start + 100 >= text.count, opcode: i == 0 ? .text : .continuation,
          data: ByteBuffer(bytes: chunk)))
    }
    try await src.send(frames: frames)
    #expect(try await src.expectClose().code == 1009)
  }

  @Test func aFragmentedMessageWithinTheLimitIsReassembled() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("reasm", query: "raw=1")
    let (src, _) = try await relay.source("reasm")
    let text = Array(frameText(1, t: 5, [(7, "began", 3, 4)]).utf8)
    var frames: [WebSocketFrame] = []
    for (i, byte) in text.enumerated() {
      frames.append(
        WebSocketFrame(
          fin: i == text.count - 1, opcode: i == 0 ? .text : .continuation, data: ByteBuffer(bytes: [byte])))
      if i % 10 == 0 { frames.append(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())) }
    }
    try await src.send(frames: frames)
    let m = try await watcher.nextJSON(type: "touches")
    #expect(m["touches"]?[0]?["id"]?.intValue == 7)
  }

  @Test func invalidUTF8ClosesWith1007() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (src, _) = try await relay.source("utf")
    try await src.send(
      frame: WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: [0x7B, 0xC3, 0x28, 0x7D])))
    #expect(try await src.expectClose().code == 1007)
  }

  @Test func binaryFrameClosesWith1003() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (src, _) = try await relay.source("bin")
    try await src.send(binary: [1, 2, 3])
    #expect(try await src.expectClose().code == 1003)
  }

  @Test func badSessionNamesAndPathsAreRefusedBeforeTheUpgrade() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let cases: [(String, Int)] = [
      ("/v1/source/bad.name", 400), ("/v1/observe/" + String(repeating: "a", count: 65), 400),
      ("/v1/observe/ok?gestures=wave", 400), ("/v1/observe/ok?colour=red", 400), ("/v1/observe/ok?raw=maybe", 400),
      ("/v1/watch/ok", 404), ("/v2/source/ok", 404), ("/", 404), ("/healthz", 404),
    ]
    for (path, status) in cases {
      do {
        _ = try await WebSocketConnection.connect(relay.url(path))
        Issue.record("\(path) was upgraded")
      } catch let e as WebSocketClientError {
        #expect(e.refusedStatus == status, "\(path): \(e)")
        if case .upgradeRefused(let r) = e, status == 400 {
          #expect(r.text.count > 5, "400 should say why")
        }
      }
    }
    let notFound = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/nothing/here")
    #expect(notFound.status == 404)
  }

  /// A barrage of bad input on one session changes nothing for a watched one.
  @Test func badInputNeverHarmsAnotherConnection() async throws {
    let relay = try TestRelay { $0.limits.maxMessageBytes = 4096 }
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("calm", query: "raw=1")
    let (calm, _) = try await relay.source("calm")
    let barrage: [String] = [
      "garbage", "{", #"{"type":"frame"}"#, #"{"type":"frame","seq":1,"t":NaN,"touches":[]}"#,
      String(repeating: "[", count: 3000), #"{"type":"hello","device":7}"#,
    ]
    var seq = 0
    for round in 0..<5 {
      let (noisy, _) = try await relay.source("noisy")
      for bad in barrage { try await noisy.send(text: bad) }
      try await noisy.send(binary: [0xFF])
      seq += 1
      try await calm.send(text: frameText(seq, t: Double(seq), [(1, seq == 1 ? "began" : "moved", Double(round), 0)]))
    }
    for expected in 1...seq {
      #expect(try await watcher.nextJSON(type: "touches")["seq"]?.intValue == expected)
    }
    #expect(try await relay.health()["status"]?.stringValue == "ok")
  }
}

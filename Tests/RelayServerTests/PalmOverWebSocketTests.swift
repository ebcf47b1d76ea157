import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// Palm rejection through the running server: a raw observer gets the palm's entries marked
/// `"palm":true` and every other frame byte for byte as the source wrote it, and the palm
/// takes no part in the gestures observers get.
@Suite struct PalmOverWebSocketTests {
  /// The next `touches` message `ws` receives, or a `gesture` when `gestures` is set.
  func next(_ ws: WebSocketConnection, _ prefix: String = #"{"type":"touches""#) async throws -> String {
    while true {
      let m = try await ws.next()
      if let text = m.text, text.hasPrefix(prefix) { return text }
    }
  }

  @Test func rawObserversSeeThePalmMarkedAndOtherFramesUnchanged() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("palms", query: "raw=1")
    let (src, _) = try await relay.source("palms")
    func send(_ seq: Int, _ t: Int, _ touches: String) async throws -> String {
      try await src.send(text: #"{"type":"frame","seq":\#(seq),"t":\#(t),"touches":\#(touches)}"#)
      return try await next(watcher)
    }
    func expectTouches(_ text: String, _ touches: String) {
      #expect(text.hasSuffix(#","touches":\#(touches)}"#), "\(text)")
    }

    // No palm: the source's own text.
    let one = #"[{"id":1,"phase":"began","x":10,"y":20,"radius":12.5}]"#
    expectTouches(try await send(1, 100, one), one)
    // A palm lands (radius at least 80): only its entry gains the member.
    expectTouches(
      try await send(
        2, 110,
        #"[{"id":1,"phase":"stationary","x":10,"y":20,"radius":12.5},{"id":2,"phase":"began","x":300,"y":600,"radius":96}]"#
      ),
      #"[{"id":1,"phase":"stationary","x":10,"y":20,"radius":12.5},{"id":2,"phase":"began","x":300,"y":600,"radius":96,"palm":true}]"#
    )
    // Still a palm though it shrinks, until it ends; spaced text is written as the server writes it.
    expectTouches(
      try await send(
        3, 150, #"[ {"id":1,"phase":"ended","x":11,"y":20}, {"radius":50,"id":2,"phase":"moved","x":301,"y":600} ]"#),
      #"[{"id":1,"phase":"ended","x":11,"y":20},{"id":2,"phase":"moved","x":301,"y":600,"radius":50,"palm":true}]"#)

    // The finger's press is a one-finger tap: the palm, held on past the tap's 300 ms, is not
    // counted (counted, the press would be no tap at all).
    let tap = try JSONValue.parse(try await next(watcher, #"{"type":"gesture""#))
    #expect(tap["gesture"]?.stringValue == "tap" && tap["touches"]?.intValue == 1, "\(tap.jsonString)")
    #expect(tap["x"]?.doubleValue == 11)

    expectTouches(
      try await send(4, 700, #"[{"id":2,"phase":"ended","x":301,"y":600,"radius":50}]"#),
      #"[{"id":2,"phase":"ended","x":301,"y":600,"radius":50,"palm":true}]"#)
    // After the palm: unchanged again.
    let five = #"[{"id":3,"phase":"began","x":40,"y":50,"kind":"pen","pressure":0.5}]"#
    expectTouches(try await send(5, 800, five), five)
  }

  /// TUIO has no palm mark and its consumers make gestures of every cursor: a palm is no
  /// cursor there (gestures.md, "Palm rejection").
  @Test func aTUIOObserverGetsNoCursorForAPalm() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("hand", query: "format=tuio")
    let (src, _) = try await relay.source("hand")
    _ = try await watcher.nextJSON(type: "source")
    try await src.send(texts: [
      #"{"type":"frame","seq":1,"t":10,"touches":[{"id":1,"phase":"began","x":100,"y":200},"#
        + #"{"id":2,"phase":"began","x":300,"y":600,"radius":120}]}"#,
      #"{"type":"frame","seq":2,"t":20,"touches":[{"id":1,"phase":"moved","x":110,"y":200},"#
        + #"{"id":2,"phase":"moved","x":305,"y":600,"radius":120}]}"#,
    ])
    let bundles = try await watcher.tuioCursorBundles(2)
    // One cursor, the finger's, in both bundles: the palm of radius 120 is none.
    #expect(bundles.map { $0.alive?.count } == [1, 1])
  }
}

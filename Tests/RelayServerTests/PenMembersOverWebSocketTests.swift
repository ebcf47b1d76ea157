import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// A pen's members through the running server: raw observers get them as the source sent
/// them, and a value out of range gets its error while the connection stays up.
@Suite struct PenMembersOverWebSocketTests {
  /// The text of the next `touches` message `ws` receives.
  func nextTouchesText(_ ws: WebSocketConnection) async throws -> String {
    while true {
      let m = try await ws.next()
      if let text = m.text, text.hasPrefix(#"{"type":"touches""#) { return text }
    }
  }

  @Test func observersGetPenMembersUnchangedAndABadValueKeepsTheConnection() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("pens", query: "raw=1")
    let (src, _) = try await relay.source("pens")

    // Compact, in the writer's order: the observer gets the source's text itself.
    let touches =
      #"[{"id":1,"phase":"began","x":10,"y":20,"kind":"pen","pressure":0.42,"radius":0.5,"altitude":0.9,"azimuth":2.35},"#
      + #"{"id":2,"phase":"began","x":30,"y":40,"kind":"pen","altitude":1.2,"hover":true}]"#
    try await src.send(text: #"{"type":"frame","seq":1,"t":100,"touches":\#(touches)}"#)
    let first = try await nextTouchesText(watcher)
    #expect(first.hasSuffix(#","touches":\#(touches)}"#), "\(first)")

    // Spaced and in another order (the full decoder's): the same members and values.
    try await src.send(
      text: #"{"type":"frame", "seq":2,"t":110,"touches":[{"hover":false,"azimuth":6,"id":1,"phase":"moved","x":11,"y":20,"kind":"eraser","pressure":1}]}"#)
    let second = try await nextTouchesText(watcher)
    #expect(
      second.hasSuffix(
        #","touches":[{"id":1,"phase":"moved","x":11,"y":20,"kind":"eraser","pressure":1,"azimuth":6,"hover":false}]}"#),
      "\(second)")

    // Out of range: bad_value naming the member, with the frame's seq.
    try await src.send(
      text: #"{"type":"frame","seq":3,"t":120,"touches":[{"id":1,"phase":"moved","x":12,"y":20,"kind":"pen","pressure":1.5}]}"#)
    let error = try await src.nextJSON(type: "error")
    #expect(error["code"]?.stringValue == "bad_value", "\(error.jsonString)")
    #expect(error["message"]?.stringValue?.contains("touches[0].pressure") == true, "\(error.jsonString)")
    #expect(error["seq"]?.intValue == 3)

    // Still open, and the refused frame changed nothing: the next one goes through.
    try await src.send(
      text: #"{"type":"frame","seq":4,"t":130,"touches":[{"id":1,"phase":"ended","x":12,"y":20,"kind":"pen","pressure":0}]}"#)
    let fourth = try await nextTouchesText(watcher)
    #expect(fourth.contains(#""seq":4,"#) && fourth.contains(#""pressure":0}"#), "\(fourth)")
  }
}

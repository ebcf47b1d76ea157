import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// `?predict=MS` through the running server (protocol/README.md, "Predicted positions"): an
/// observer that asks gets `predicted` on the moving touches, one beside it that does not gets
/// the source's text unchanged, and a bad value is refused before the upgrade.
@Suite struct PredictOverWebSocketTests {
  /// The texts of the next `count` `touches` messages `ws` receives.
  static func touchesTexts(_ ws: WebSocketConnection, _ count: Int) async throws -> [String] {
    var out: [String] = []
    while out.count < count {
      let m = try await ws.next()
      if let text = m.text, text.hasPrefix(#"{"type":"touches""#) { out.append(text) }
    }
    return out
  }

  /// One finger moving right at 1 point per ms, a frame every 10 ms, then lifting.
  /// (Compact, in the writer's order: observers without `predict` get this text itself.)
  static let frames = [
    #"{"type":"frame","seq":1,"t":1000,"touches":[{"id":1,"phase":"began","x":10,"y":10}]}"#,
    #"{"type":"frame","seq":2,"t":1010,"touches":[{"id":1,"phase":"moved","x":20,"y":10}]}"#,
    #"{"type":"frame","seq":3,"t":1020,"touches":[{"id":1,"phase":"moved","x":30,"y":10}]}"#,
    #"{"type":"frame","seq":4,"t":1030,"touches":[{"id":1,"phase":"ended","x":30,"y":10}]}"#,
  ]

  @Test func anObserverThatAsksGetsPredictedAndOneThatDoesNotGetsTheSourcesText() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (plain, _) = try await relay.observer("predict", query: "raw=1&gestures=")
    let (ahead, _) = try await relay.observer("predict", query: "predict=33&gestures=")
    let (src, _) = try await relay.source("predict")
    try await src.send(texts: Self.frames)
    let plainTexts = try await Self.touchesTexts(plain, 4)
    let aheadTexts = try await Self.touchesTexts(ahead, 4)
    // The source's compact `touches` text itself, as without any predicting observer.
    for (text, frame) in zip(plainTexts, Self.frames) {
      let sent = frame[frame.range(of: #","touches":"#)!.lowerBound...]
      #expect(text.hasSuffix(sent), "\(text)")
    }
    #expect(aheadTexts[0] == plainTexts[0])
    #expect(
      aheadTexts[1].hasSuffix(#""touches":[{"id":1,"phase":"moved","x":20,"y":10,"predicted":{"x":53,"y":10}}]}"#),
      "\(aheadTexts[1])")
    #expect(
      aheadTexts[2].hasSuffix(#""touches":[{"id":1,"phase":"moved","x":30,"y":10,"predicted":{"x":63,"y":10}}]}"#),
      "\(aheadTexts[2])")
    #expect(aheadTexts[3] == plainTexts[3], "a lifted finger is not predicted")
    // Everything but `predicted` is the plain observer's message, byte for byte.
    for i in 1...2 {
      let stripped = aheadTexts[i].replacingOccurrences(
        of: #","predicted":\{[^}]*\}"#, with: "", options: .regularExpression)
      #expect(stripped == plainTexts[i])
    }
    for ws in [plain, ahead, src] { await ws.close() }
  }

  @Test func aBadPredictValueIsRefusedWithTheReason() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    for query in ["predict=0", "predict=101", "predict=16.5", "predict=", "predict=fast", "predict=33&format=tuio"] {
      do {
        _ = try await WebSocketConnection.connect(relay.url("/v1/observe/ok?\(query)"))
        Issue.record("\(query) was upgraded")
      } catch let e as WebSocketClientError {
        #expect(e.refusedStatus == 400, "\(query): \(e)")
        if case .upgradeRefused(let r) = e {
          #expect(r.text.contains("predict"), "\(query): \(r.text)")
        }
      }
    }
  }
}

import ConformanceSupport
import Foundation
import RelayCore
import Testing
import TouchProtocol

/// `?predict=MS` (protocol/README.md, "Predicted positions"): the option's values, what
/// observers that ask get, and that those that do not get today's bytes.
@Suite struct PredictedPositionsTests {
  func filter(_ args: [(String, String)]) -> Result<ObserverFilter, RequestTarget.Refusal> {
    ObserverFilter.parse(args)
  }

  @Test func predictTakesWholeMillisecondsFromOneToAHundredAndImpliesRaw() throws {
    for (value, ms) in [("1", 1), ("33", 33), ("100", 100), ("016", 16)] {
      let f = try filter([("predict", value)]).get()
      #expect(f.predict == ms)
      #expect(f.raw)
    }
    #expect(try filter([("raw", "1")]).get().predict == nil)
    let refusal = RequestTarget.Refusal.badRequest("predict must be a whole number of ms from 1 to 100")
    for bad in ["0", "101", "-1", "1.5", "", "abc", "33ms", "1e1", "+5", " 5", "99999999999999999999"] {
      #expect(filter([("predict", bad)]) == .failure(refusal), "\(bad)")
    }
    #expect(
      filter([("predict", "16"), ("format", "tuio")])
        == .failure(.badRequest("predict is for JSON observers, not format=tuio")))
  }

  func predicting(_ ms: Int, source: String? = nil) -> ObserverFilter {
    var f = ObserverFilter(raw: true, source: source, gestures: GestureKinds())
    f.predict = ms
    return f
  }

  /// One finger moving right at 1 point per ms, sampled every 10 ms, then holding, then lifting.
  func frames(_ h: CoreHarness) -> [String] {
    [
      h.frame(1, t: 1000, [(1, "began", 10, 10)]),
      h.frame(2, t: 1010, [(1, "moved", 20, 10)]),
      h.frame(3, t: 1020, [(1, "moved", 30, 10), (2, "began", 300, 300)]),
      h.frame(4, t: 1030, [(1, "moved", 40, 10), (2, "stationary", 300, 300)]),
      h.frame(5, t: 1040, [(1, "moved", 50, 10), (2, "moved", 300, 300)]),
      h.frame(6, t: 1050, [(1, "stationary", 50, 10), (2, "ended", 300, 300)]),
      h.frame(7, t: 1060, [(1, "ended", 50, 10)]),
    ]
  }

  /// The `touches` texts a plain raw observer gets for `frames`, with or without
  /// `predict` observers beside it.
  func plainTexts(withPredictingObservers: Bool) throws -> [String] {
    let h = CoreHarness()
    let (plain, _) = try h.observer("s")
    if withPredictingObservers {
      _ = try h.observer("s", predicting(33), address: "10.0.0.3")
      _ = try h.observer("s", predicting(16), address: "10.0.0.4")
    }
    let (src, _) = try h.source("s", at: 0)
    for (i, f) in frames(h).enumerated() { h.send(f, from: src, at: Double(10 + i)) }
    return h.messages(plain).map(\.text).filter { $0.hasPrefix(#"{"type":"touches""#) }
  }

  @Test func observersThatDoNotAskGetTheSameBytesAsWithoutPrediction() throws {
    let without = try plainTexts(withPredictingObservers: false)
    let with = try plainTexts(withPredictingObservers: true)
    #expect(without.count == 7)
    #expect(with == without)
    #expect(!with.joined().contains("predicted"))
  }

  @Test func movingTouchesCarryWhereTheyWillBeAndOthersNothing() throws {
    let h = CoreHarness()
    let (plain, _) = try h.observer("s", ObserverFilter(raw: true, gestures: GestureKinds()))
    let (a33, _) = try h.observer("s", predicting(33), address: "10.0.0.3")
    let (b33, _) = try h.observer("s", predicting(33), address: "10.0.0.4")
    let (c16, _) = try h.observer("s", predicting(16), address: "10.0.0.5")
    let (other, _) = try h.observer("s", predicting(16, source: "nobody"), address: "10.0.0.6")
    let (src, _) = try h.source("s", at: 0)
    for p in [plain, a33, b33, c16, other] { _ = h.messages(p) }
    for (i, f) in frames(h).enumerated() { h.send(f, from: src, at: Double(10 + i)) }
    let plainMessages = h.messages(plain)
    let m33 = h.messages(a33), m33b = h.messages(b33), m16 = h.messages(c16)
    #expect(h.messages(other).isEmpty)
    #expect([plainMessages.count, m33.count, m33b.count, m16.count] == [Int](repeating: 7, count: 4))
    for i in 0..<7 {
      // One copy per MS, shared by the observers that asked for it.
      #expect(m33[i] === m33b[i])
      #expect(m33[i] !== m16[i] && m33[i] !== plainMessages[i])
      // The source's entries are all there, byte for byte; `predicted` is spliced in.
      #expect(strippingPredicted(m33[i].text) == plainMessages[i].text)
      #expect(strippingPredicted(m16[i].text) == plainMessages[i].text)
    }
    // Moving at 1 point per ms: 33 and 16 points ahead once it has moved (a straight line
    // through the samples is what any least-squares fit gives).
    #expect(m33[0].text.hasSuffix(#""touches":[{"id":1,"phase":"began","x":10,"y":10}]}"#), "\(m33[0].text)")
    #expect(
      m33[1].text.hasSuffix(#""touches":[{"id":1,"phase":"moved","x":20,"y":10,"predicted":{"x":53,"y":10}}]}"#),
      "\(m33[1].text)")
    #expect(
      m16[1].text.hasSuffix(#""touches":[{"id":1,"phase":"moved","x":20,"y":10,"predicted":{"x":36,"y":10}}]}"#),
      "\(m16[1].text)")
    // A touch that has not moved since it landed is predicted where it is.
    #expect(
      m33[4].text.hasSuffix(
        #""touches":[{"id":1,"phase":"moved","x":50,"y":10,"predicted":{"x":83,"y":10}},"#
          + #"{"id":2,"phase":"moved","x":300,"y":300,"predicted":{"x":300,"y":300}}]}"#), "\(m33[4].text)")
    // Holding (`stationary`), lifted (`ended`), or just down (`began`): no prediction.
    #expect(!m33[2].text.contains(#""x":300,"y":300,"predicted""#))
    #expect(!m33[3].text.contains(#""x":300,"y":300,"predicted""#))
    #expect(!m33[5].text.contains("predicted"))
    #expect(!m33[6].text.contains("predicted"))
  }

  func strippingPredicted(_ text: String) -> String {
    var out = text
    while let r = out.range(of: #","predicted":\{[^}]*\}"#, options: .regularExpression) { out.removeSubrange(r) }
    return out
  }
}

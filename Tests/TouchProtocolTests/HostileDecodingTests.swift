import Testing
import TouchProtocol

/// Decoder answers for hostile spellings (the hostile-input corpus and tools/fuzz found these).
@Suite struct HostileDecodingTests {
  private func code(_ text: String) -> String? {
    if case .failure(let e) = MessageDecoder().decode(text) { return e.code.rawValue }
    return nil
  }

  /// Every NaN/Infinity spelling some JSON parser accepts is `non_finite`, wherever it
  /// stands; `+Infinity` and `+NaN` (JSON5) used to be `bad_json`.
  @Test(arguments: [
    "NaN", "-NaN", "+NaN", "nan", "Infinity", "-Infinity", "+Infinity", "infinity", "Inf", "-inf", "+inf", "INF",
  ])
  func nonFiniteSpellings(word: String) {
    #expect(code(#"{"type":"frame","seq":1,"t":\#(word),"touches":[]}"#) == "non_finite")
    #expect(code(#"{"type":"frame","seq":1,"t":1,"touches":[],"x":[\#(word)]}"#) == "non_finite")
    #expect(code(#"{"type":"hello","device":{"name":"x","width":\#(word),"height":1}}"#) == "non_finite")
  }

  /// A '+' before a number is still not JSON.
  @Test func plusBeforeANumberIsBadJSON() {
    #expect(code(#"{"type":"frame","seq":+1,"t":1,"touches":[]}"#) == "bad_json")
    #expect(code(#"{"type":"frame","seq":1,"t":1,"touches":[],"x":+}"#) == "bad_json")
  }
}

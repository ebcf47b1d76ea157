import SignedTokens
import Testing

/// The strict JSON parser under headers, claims and key sets.
@Suite struct JOSEJSONTests {
  @Test func parsesWhatJSONAllows() throws {
    let v = try JOSEJSON.parse(Array(#" {"a":[1,-2.5e3,true,false,null],"b":"\u00e9\ud83d\ude00\n"} "#.utf8))
    #expect(v["a"] == .array([.number(1), .number(-2500), .bool(true), .bool(false), .null]))
    #expect(v["b"]?.string == "é😀\n")
  }

  @Test func refusesWhatJSONDoesNot() {
    for bad in [
      "", "{", #"{"a":1,}"#, "[1,]", "01", "1.", "-", "tru", #""\x""#, #""\ud800""#, "{} {}", #"{"a":1,"a":2}"#,
      String(repeating: "[", count: 40) + String(repeating: "]", count: 40), "\"\u{01}\"", "1e999",
    ] {
      #expect(throws: JOSEJSON.ParseError.self, "\(bad)") { try JOSEJSON.parse(Array(bad.utf8)) }
    }
  }

  @Test func base64URLIsStrict() {
    #expect(Base64URL.decode("aGk") == Array("hi".utf8))
    #expect(Base64URL.encode(Array("hi".utf8)) == "aGk")
    for bad in ["aGk=", "aG k", "aGl", "a", "aG+/"] { #expect(Base64URL.decode(bad) == nil, "\(bad)") }
    for n in 0..<40 {
      let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
      #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
    }
  }
}

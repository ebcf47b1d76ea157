import SignedTokens
import Testing

/// What a token's `role` and `session` claims allow.
@Suite struct TokenClaimsTests {
  func claims(role: String?, session: String?) throws -> TokenClaims {
    try TokenClaims(json: Array(TestTokens.claims(role: role, session: session).utf8))
  }

  @Test func rolesAllowWhatTheySay() throws {
    #expect(try claims(role: "source", session: #""a""#).check(session: "a", role: .source) == nil)
    #expect(try claims(role: "source", session: #""a""#).check(session: "a", role: .observer) == .wrongRole)
    #expect(try claims(role: "observer", session: #""a""#).check(session: "a", role: .source) == .wrongRole)
    #expect(try claims(role: "both", session: #""a""#).check(session: "a", role: .observer) == nil)
    #expect(try claims(role: "admin", session: #""a""#).check(session: "a", role: .observer) == .wrongRole)
    #expect(try claims(role: nil, session: #""a""#).check(session: "a", role: .source) == .wrongRole)
  }

  @Test func sessionsAreANameAListOrAPrefixPattern() throws {
    let name = try claims(role: "both", session: #""stage""#)
    #expect(name.check(session: "stage", role: .source) == nil)
    #expect(name.check(session: "stage-2", role: .source) == .wrongSession)
    let list = try claims(role: "both", session: #"["a","b"]"#)
    #expect(list.check(session: "b", role: .source) == nil)
    #expect(list.check(session: "c", role: .source) == .wrongSession)
    let prefix = try claims(role: "both", session: #""stage-*""#)
    #expect(prefix.check(session: "stage-1", role: .source) == nil)
    #expect(prefix.check(session: "stage", role: .source) == .wrongSession)
    #expect(prefix.check(session: "backstage-1", role: .source) == .wrongSession)
    let any = try claims(role: "both", session: #""*""#)
    #expect(any.check(session: "anything", role: .observer) == nil)
    #expect(try claims(role: "both", session: nil).check(session: "a", role: .source) == .wrongSession)
  }

  @Test func claimsOfTheWrongTypeMakeTheTokenMalformed() {
    for bad in [
      #"{"exp":1,"role":3}"#, #"{"exp":1,"session":{"a":1}}"#, #"{"exp":1,"session":["a",2]}"#,
      #"{"exp":1,"aud":true}"#, #"{"exp":1,"nbf":"x"}"#, #"{"exp":1,"exp":2}"#, #"[1]"#,
    ] {
      #expect(throws: TokenRefusal.self, "\(bad)") { try TokenClaims(json: Array(bad.utf8)) }
    }
  }
}

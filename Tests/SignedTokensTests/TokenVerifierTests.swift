import Crypto
import SignedTokens
import Testing
import _CryptoExtras

/// Signature, key choice and time checks, with tokens minted by `TestTokens`.
@Suite struct TokenVerifierTests {
  let secret = Array("a-shared-secret-of-at-least-32-bytes!".utf8)
  let now = 1_800_000_000.0

  func verifier(_ keys: [VerificationKey], leeway: Double = 30, audience: String? = nil) -> TokenVerifier {
    TokenVerifier(keys: keys, leeway: leeway, audience: audience)
  }

  func hmacKey(id: String? = nil, _ secret: [UInt8]) -> VerificationKey {
    VerificationKey(id: id, material: .hmac(SymmetricKey(data: secret)))
  }

  @Test func eachAlgorithmVerifiesWithItsKey() throws {
    let ec = P256.Signing.PrivateKey()
    let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let v = verifier([
      hmacKey(secret), VerificationKey(id: nil, material: .p256(ec.publicKey)),
      VerificationKey(id: nil, material: .rsa(rsa.publicKey)),
    ])
    let claims = TestTokens.claims(exp: now + 60)
    for (alg, sign) in [
      ("HS256", TestTokens.hs256(secret)), ("ES256", TestTokens.es256(ec)), ("RS256", TestTokens.rs256(rsa)),
    ] as [(String, ([UInt8]) throws -> [UInt8])] {
      let t = try TestTokens.token(header: #"{"alg":"\#(alg)","typ":"JWT"}"#, claims: claims, sign: sign)
      let verified = try v.verify(t, at: now).get()
      #expect(verified.validUntil == now + 90, "\(alg)")
      #expect(verified.claims.check(session: "stage", role: .source) == nil, "\(alg)")
    }
  }

  @Test func aWrongKeyOrATamperedPayloadIsABadSignature() throws {
    let v = verifier([hmacKey(secret)])
    let other = TestTokens.token(
      header: #"{"alg":"HS256"}"#, claims: TestTokens.claims(),
      sign: TestTokens.hs256(Array("another-secret-of-at-least-32-bytes!!".utf8)))
    #expect(v.verify(other, at: now) == .failure(.badSignature))
    let good = TestTokens.token(
      header: #"{"alg":"HS256"}"#, claims: TestTokens.claims(role: "observer"), sign: TestTokens.hs256(secret))
    #expect((try? v.verify(good, at: now).get()) != nil)
    let parts = good.split(separator: ".")
    let forged = parts[0] + "." + Base64URL.encode(Array(TestTokens.claims(role: "both").utf8)) + "." + parts[2]
    #expect(v.verify(String(forged), at: now) == .failure(.badSignature))
  }

  @Test func theAlgorithmComesFromTheKeyNeverFromTheHeader() throws {
    let ec = P256.Signing.PrivateKey()
    let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let v = verifier([
      VerificationKey(id: nil, material: .p256(ec.publicKey)), VerificationKey(id: nil, material: .rsa(rsa.publicKey)),
    ])
    // alg none, with and without a signature.
    let noneHeader = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
    let body = Base64URL.encode(Array(TestTokens.claims().utf8))
    #expect(v.verify("\(noneHeader).\(body).", at: now) == .failure(.algorithmNotAccepted))
    #expect(v.verify("\(noneHeader).\(body).AAAA", at: now) == .failure(.algorithmNotAccepted))
    // HS256 "signed" with the public keys' PEM text as the secret.
    for pem in [ec.publicKey.pemRepresentation, rsa.publicKey.pemRepresentation] {
      for secret in [Array(pem.utf8), Array((pem + "\n").utf8)] {
        let t = TestTokens.token(
          header: #"{"alg":"HS256"}"#, claims: TestTokens.claims(), sign: TestTokens.hs256(secret))
        #expect(v.verify(t, at: now) == .failure(.algorithmNotAccepted))
      }
    }
    // An ES256 signature presented as RS256 and the other way round.
    let es = try TestTokens.token(header: #"{"alg":"RS256"}"#, claims: TestTokens.claims(), sign: TestTokens.es256(ec))
    #expect(v.verify(es, at: now) == .failure(.badSignature))
  }

  @Test func anUnknownKidIsRefusedAndNeverTriedAgainstOtherKeys() throws {
    let v = verifier([hmacKey(id: "k1", secret)])
    let known = TestTokens.token(
      header: #"{"alg":"HS256","kid":"k1"}"#, claims: TestTokens.claims(), sign: TestTokens.hs256(secret))
    #expect((try? v.verify(known, at: now).get())?.keyID == "k1")
    // Signed with k1's secret, but naming another kid: refused though k1 would verify it.
    let unknown = TestTokens.token(
      header: #"{"alg":"HS256","kid":"k2"}"#, claims: TestTokens.claims(), sign: TestTokens.hs256(secret))
    #expect(v.verify(unknown, at: now) == .failure(.unknownKey))
    // Without a kid every key of the algorithm is tried.
    let bare = TestTokens.token(
      header: #"{"alg":"HS256"}"#, claims: TestTokens.claims(), sign: TestTokens.hs256(secret))
    #expect((try? v.verify(bare, at: now).get()) != nil)
  }

  @Test func expiryAndNotBeforeHaveTheLeeway() {
    let v = verifier([hmacKey(secret)], leeway: 30)
    func check(_ claims: String) -> Result<VerifiedToken, TokenRefusal> {
      v.verify(TestTokens.token(header: #"{"alg":"HS256"}"#, claims: claims, sign: TestTokens.hs256(secret)), at: now)
    }
    #expect((try? check(TestTokens.claims(exp: now - 29)).get()) != nil)
    #expect(check(TestTokens.claims(exp: now - 30)) == .failure(.expired))
    #expect(check(TestTokens.claims(exp: now - 3600)) == .failure(.expired))
    #expect((try? check(TestTokens.claims(exp: now + 60, nbf: now + 29)).get()) != nil)
    #expect(check(TestTokens.claims(exp: now + 600, nbf: now + 31)) == .failure(.notYetValid))
    #expect(check(#"{"role":"both","session":"stage"}"#) == .failure(.malformed("no exp")))
    #expect(check(#"{"exp":"soon","role":"both","session":"stage"}"#) == .failure(.malformed("exp is not a number")))
  }

  @Test func theAudienceMustMatchWhenOneIsSet() {
    let v = verifier([hmacKey(secret)], audience: "touch-relay")
    func check(_ aud: String?) -> Result<VerifiedToken, TokenRefusal> {
      let claims = TestTokens.claims(exp: now + 60, aud: aud)
      return v.verify(
        TestTokens.token(header: #"{"alg":"HS256"}"#, claims: claims, sign: TestTokens.hs256(secret)), at: now)
    }
    #expect((try? check(#""touch-relay""#).get()) != nil)
    #expect((try? check(#"["other","touch-relay"]"#).get()) != nil)
    #expect(check(#""other""#) == .failure(.wrongAudience))
    #expect(check(nil) == .failure(.wrongAudience))
  }

  @Test func malformedTokensAreRefusedAsSuch() {
    let v = verifier([hmacKey(secret)])
    for bad in ["", "a.b", "a.b.c.d", "!!.e30.", "e30.e30.", "W10.e30."] {
      guard case .failure(.malformed) = v.verify(bad, at: now) else {
        Issue.record("'\(bad)' not refused as malformed: \(v.verify(bad, at: now))")
        continue
      }
    }
    let crit = TestTokens.token(
      header: #"{"alg":"HS256","crit":["b64"],"b64":false}"#, claims: TestTokens.claims(),
      sign: TestTokens.hs256(secret))
    #expect(v.verify(crit, at: now) == .failure(.malformed("header has crit")))
    #expect(v.verify(String(repeating: "a", count: 9000), at: now) == .failure(.malformed("longer than 8192 bytes")))
  }
}

import Crypto
import SignedTokens
import Testing
import _CryptoExtras

/// Key files told apart by their contents: secret, PEM public key, JWK, JWKS.
@Suite struct KeyFileTests {
  let now = 1_800_000_000.0

  @Test func aSecretFileIsItsBytesLessOneLineBreak() throws {
    let secret = "a-shared-secret-of-at-least-32-bytes!"
    let keys = try KeyFile.parse(Array((secret + "\n").utf8)).keys
    #expect(keys.count == 1 && keys[0].algorithm == .hs256)
    let t = TestTokens.token(
      header: #"{"alg":"HS256"}"#, claims: TestTokens.claims(), sign: TestTokens.hs256(Array(secret.utf8)))
    #expect((try? TokenVerifier(keys: keys).verify(t, at: now).get()) != nil)
    #expect(throws: KeyFileError.self) { try KeyFile.parse(Array("short\n".utf8)) }
  }

  @Test func pemPublicKeysGiveES256AndRS256() throws {
    let ec = P256.Signing.PrivateKey()
    let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    #expect(try KeyFile.parse(Array(ec.publicKey.pemRepresentation.utf8)).keys.first?.algorithm == .es256)
    #expect(try KeyFile.parse(Array(rsa.publicKey.pemRepresentation.utf8)).keys.first?.algorithm == .rs256)
    #expect(try KeyFile.parse(Array(rsa.publicKey.pkcs1PEMRepresentation.utf8)).keys.first?.algorithm == .rs256)
    // The RSA key read from its DER by us verifies what the private key signed.
    let rsaKeys = try KeyFile.parse(Array(rsa.publicKey.pemRepresentation.utf8)).keys
    let t = try TestTokens.token(header: #"{"alg":"RS256"}"#, claims: TestTokens.claims(), sign: TestTokens.rs256(rsa))
    #expect((try? TokenVerifier(keys: rsaKeys).verify(t, at: 1_800_000_000).get()) != nil)
    // Neither P-256 nor RSA: refused without reaching swift-crypto's RSA DER parser, which frees
    // its key twice when the parse fails.
    let ed25519 =
      "-----BEGIN PUBLIC KEY-----\n" + "MCowBQYDK2VwAyEAGX/zhhHwI7TWqnXl33Wv2yNWoS6r5OUWgCq5kldy1Sk=\n"
      + "-----END PUBLIC KEY-----\n"
    #expect(throws: KeyFileError.self) { try KeyFile.parse(Array(ed25519.utf8)) }
    // A private key is refused rather than read for its public half.
    #expect(throws: KeyFileError.self) { try KeyFile.parse(Array(ec.pemRepresentation.utf8)) }
    #expect(throws: KeyFileError.self) {
      try KeyFile.parse(Array("-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----\n".utf8))
    }
    // A P-384 key is neither.
    #expect(throws: KeyFileError.self) {
      try KeyFile.parse(Array(P384.Signing.PrivateKey().publicKey.pemRepresentation.utf8))
    }
  }

  @Test func aJWKSGivesKeysByKidWithTheAlgorithmFromTheirType() throws {
    let ec = P256.Signing.PrivateKey()
    let raw = Array(ec.publicKey.rawRepresentation)
    let x = Base64URL.encode(raw[0..<32])
    let y = Base64URL.encode(raw[32..<64])
    let k = Base64URL.encode(Array("a-shared-secret-of-at-least-32-bytes!".utf8))
    let jwks = """
      {"keys":[
        {"kty":"EC","crv":"P-256","x":"\(x)","y":"\(y)","kid":"ec-1"},
        {"kty":"oct","k":"\(k)","kid":"hs-1","alg":"HS256"},
        {"kty":"oct","k":"\(k)","kid":"enc","use":"enc"},
        {"kty":"EC","crv":"P-384","x":"\(x)","y":"\(y)","kid":"p384"},
        {"kty":"RSA","n":"AQAB","e":"AQAB","kid":"ps","alg":"PS256"}
      ]}
      """
    let (keys, skipped) = try KeyFile.parse(Array(jwks.utf8))
    #expect(keys.map(\.id) == ["ec-1", "hs-1"])
    #expect(keys.map(\.algorithm) == [.es256, .hs256])
    #expect(skipped == 3)
    let t = try TestTokens.token(
      header: #"{"alg":"ES256","kid":"ec-1"}"#, claims: TestTokens.claims(), sign: TestTokens.es256(ec))
    #expect((try? TokenVerifier(keys: keys).verify(t, at: now).get())?.keyID == "ec-1")
    // An EC JWK without alg is ES256 whatever a token's header says.
    let confused = TestTokens.token(
      header: #"{"alg":"HS256","kid":"ec-1"}"#, claims: TestTokens.claims(), sign: TestTokens.hs256(Array(x.utf8)))
    #expect(TokenVerifier(keys: keys).verify(confused, at: now) == .failure(.algorithmNotAccepted))
  }

  @Test func anECKeyWrittenWithoutItsLeadingZeroIsStillThatKey() throws {
    // PyJWT before 2.8 writes x and y without leading zero bytes (RFC 7518 wants 32 bytes):
    // one key in 64 then has a 31-byte coordinate. Find a key whose x starts with zero.
    var ec = P256.Signing.PrivateKey()
    while ec.publicKey.rawRepresentation.first != 0 { ec = P256.Signing.PrivateKey() }
    let raw = Array(ec.publicKey.rawRepresentation)
    let x = Base64URL.encode(raw[1..<32])
    let y = Base64URL.encode(raw[32..<64])
    let jwk = #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","kid":"short"}"#
    let key = try #require(try KeyFile.parse(Array(jwk.utf8)).keys.first)
    #expect(key.algorithm == .es256)
    let token = try TestTokens.token(
      header: #"{"alg":"ES256","kid":"short"}"#, claims: TestTokens.claims(), sign: TestTokens.es256(ec))
    guard case .success = TokenVerifier(keys: [key], leeway: 0, audience: nil).verify(token, at: now) else {
      Issue.record("a token signed with the key is refused")
      return
    }
    // A coordinate that is too long is not cut down to fit.
    let long = Base64URL.encode([0, 0] + raw[0..<32])
    #expect(throws: KeyFileError.self) {
      try KeyFile.parse(Array(#"{"kty":"EC","crv":"P-256","x":"\#(long)","y":"\#(y)"}"#.utf8))
    }
  }

  @Test func aBrokenJSONFileIsAnErrorNeverASecret() {
    for bad in [
      #"{"keys":[{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}]}"#, #"{"keys":"#, #"{"keys":[]}"#,
      #"{"keys":[{"kty":"oct","k":"c2hvcnQ"}]}"#, #"{"something":"else and long enough to be a secret"}"#,
    ] {
      #expect(throws: KeyFileError.self, "\(bad)") { try KeyFile.parse(Array(bad.utf8)) }
    }
  }
}

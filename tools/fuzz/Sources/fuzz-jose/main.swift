import CFuzzerDriver
import Crypto
import Foundation
import SignedTokens

/// libFuzzer target: the signed-token parsing (`SignedTokens`), which reads bytes from anyone
/// who asks for an upgrade (a token) and from the operator's key files. The first byte picks
/// what the rest is:
///   0: a key file (`KeyFile.parse`): a JWKS, a JWK, a PEM key or a secret
///   1: a token, verified as the server does
///   2: a JWT's claims, in a token correctly signed with the HS256 key
///   3: a JOSE header, in a token correctly signed with the HS256 key
///   4: base64url text
/// None may crash, hang or read out of bounds (run with ASan), and what is accepted must keep
/// the rules: a verified token's times hold at the time given, its header named the key's
/// algorithm and, if it named a kid, the key's; a key file's secrets are long enough; base64url
/// has one spelling per byte string.
let secret = Array("fuzz-jose-secret-of-at-least-32-bytes".utf8)
let keyID = "k1"
let now = 1_800_000_000.0
let leeway = 30.0
let verifier = TokenVerifier(
  keys: [
    VerificationKey(id: keyID, material: .hmac(SymmetricKey(data: secret))),
    VerificationKey(id: "ec", material: .p256(P256.Signing.PrivateKey().publicKey)),
  ], leeway: leeway, audience: "relay")

func check(_ ok: Bool, _ what: @autoclosure () -> String) {
  if !ok { fatalError("invariant broken: \(what())") }
}

func signed(header: [UInt8], claims: [UInt8]) -> String {
  let input = Base64URL.encode(header) + "." + Base64URL.encode(claims)
  let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: secret))
  return input + "." + Base64URL.encode(Array(mac))
}

func checkVerified(_ token: String) {
  guard case .success(let v) = verifier.verify(token, at: now) else { return }
  check(now < v.claims.expires + leeway, "accepted after exp")
  check(v.validUntil == v.claims.expires + leeway, "validUntil")
  if let nbf = v.claims.notBefore { check(now >= nbf - leeway, "accepted before nbf") }
  check(v.claims.audiences?.contains("relay") == true, "accepted without the audience")
  let parts = token.split(separator: ".", omittingEmptySubsequences: false)
  check(parts.count == 3, "accepted \(parts.count) parts")
  guard let headerBytes = Base64URL.decode(String(parts[0])), let header = try? JOSEHeader(json: headerBytes) else {
    return check(false, "accepted an unreadable header")
  }
  check(header.algorithm == "HS256", "accepted alg \(header.algorithm) for the HS256 key")
  check(header.keyID == nil || header.keyID == keyID, "accepted kid \(header.keyID ?? "") for \(keyID)")
  check(v.keyID == keyID, "verified by \(v.keyID ?? "a key without kid")")
}

func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data, size > 0 else { return 0 }
  let mode = data[0]
  let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
  switch mode % 5 {
  case 0:
    if let file = try? KeyFile.parse(rest) {
      check(!file.keys.isEmpty, "a key file with no key")
      for key in file.keys {
        if case .hmac(let k) = key.material {
          check(k.bitCount >= VerificationKey.minimumSecretBytes * 8, "a short secret")
        }
      }
    }
  case 1:
    checkVerified(String(decoding: rest, as: UTF8.self))
  case 2:
    checkVerified(signed(header: Array(#"{"alg":"HS256","kid":"k1"}"#.utf8), claims: rest))
  case 3:
    checkVerified(
      signed(header: rest, claims: Array(#"{"exp":1800000100,"aud":"relay","role":"both","session":"a"}"#.utf8)))
  default:
    if let bytes = Base64URL.decode(rest) {
      check(Array(Base64URL.encode(bytes).utf8) == rest, "two spellings of the same bytes")
    }
    check(Base64URL.decode(Base64URL.encode(rest)) == rest, "encode then decode differs")
  }
  return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })

import Crypto
import SignedTokens
import _CryptoExtras

/// Tokens minted here, independently of the verifier: header and claims written as JSON text,
/// signed with swift-crypto's signing keys.
enum TestTokens {
  static func token(header: String, claims: String, sign: ([UInt8]) throws -> [UInt8]) rethrows -> String {
    let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    return input + "." + Base64URL.encode(try sign(Array(input.utf8)))
  }

  static func hs256(_ secret: [UInt8]) -> ([UInt8]) -> [UInt8] {
    { Array(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: secret))) }
  }

  static func es256(_ key: P256.Signing.PrivateKey) -> ([UInt8]) throws -> [UInt8] {
    { Array(try key.signature(for: $0).rawRepresentation) }
  }

  static func rs256(_ key: _RSA.Signing.PrivateKey) -> ([UInt8]) throws -> [UInt8] {
    { Array(try key.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation) }
  }

  /// Claims valid at `now` for `role` in `session` (JSON text for the `session` member).
  static func claims(
    exp: Double = 2_000_000_000, nbf: Double? = nil, aud: String? = nil, role: String? = "both",
    session: String? = #""stage""#
  ) -> String {
    var members = [#""exp":\#(exp)"#]
    if let nbf { members.append(#""nbf":\#(nbf)"#) }
    if let aud { members.append(#""aud":\#(aud)"#) }
    if let role { members.append(#""role":"\#(role)""#) }
    if let session { members.append(#""session":\#(session)"#) }
    return "{" + members.joined(separator: ",") + "}"
  }
}

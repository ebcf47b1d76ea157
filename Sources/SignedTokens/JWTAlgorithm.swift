/// The signature algorithms the relay verifies. Each key has exactly one, fixed when the key is
/// read (from its type, or its JWK `alg`); a token's header `alg` must name the same one, and is
/// never what picks the algorithm (RFC 8725 §3.1): that is what makes `alg: none` and HS256
/// tokens "signed" with a public key's PEM text fail.
public enum JWTAlgorithm: String, Sendable, CaseIterable {
  /// HMAC with SHA-256 and a shared secret.
  case hs256 = "HS256"
  /// ECDSA on P-256 with SHA-256; the signature is r || s, 32 bytes each.
  case es256 = "ES256"
  /// RSASSA-PKCS1-v1_5 with SHA-256.
  case rs256 = "RS256"
}

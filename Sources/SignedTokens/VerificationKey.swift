// Crypto's key types are immutable values around BoringSSL keys only read when verifying,
// which BoringSSL allows from any thread; swift-crypto 3 does not mark them Sendable on Linux.
@preconcurrency import Crypto
@preconcurrency import _CryptoExtras

/// One key a token may be signed with, and the one algorithm it verifies.
public struct VerificationKey: Sendable {
  public enum Material: Sendable {
    case hmac(SymmetricKey)
    case p256(P256.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey)
  }

  /// The JWK's `kid`; nil for a key from a PEM or secret file.
  public let id: String?
  public let material: Material

  /// Shorter HS256 secrets are refused: RFC 7518 §3.2 asks for at least the hash's 256 bits.
  public static let minimumSecretBytes = 32
  /// RSA keys under 2048 bits are refused (RFC 7518 §3.3).
  public static let minimumRSABits = 2048

  public init(id: String?, material: Material) {
    self.id = id
    self.material = material
  }

  /// The algorithm follows from the key's type alone.
  public var algorithm: JWTAlgorithm {
    switch material {
    case .hmac: return .hs256
    case .p256: return .es256
    case .rsa: return .rs256
    }
  }

  /// Whether `signature` (decoded from the token's third part) signs `signingInput` (the
  /// token's `header.payload` ASCII) with this key, by this key's algorithm.
  public func isValidSignature(_ signature: [UInt8], for signingInput: [UInt8]) -> Bool {
    switch material {
    case .hmac(let key):
      // Compares in constant time.
      return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key)
    case .p256(let key):
      // JWS writes r || s (RFC 7518 §3.4), not DER.
      guard signature.count == 64, let s = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
        return false
      }
      return key.isValidSignature(s, for: signingInput)
    case .rsa(let key):
      // RS256 is PKCS#1 v1.5 by definition (RFC 7518 §3.3); "insecure" is swift-crypto's
      // warning against choosing it for new designs, not a weakness of verifying it.
      let s = _RSA.Signing.RSASignature(rawRepresentation: signature)
      return key.isValidSignature(s, for: signingInput, padding: .insecurePKCS1v1_5)
    }
  }
}

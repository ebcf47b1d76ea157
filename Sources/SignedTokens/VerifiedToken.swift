/// A token whose signature, `exp`, `nbf` and `aud` passed: what it allows is still to check
/// (`claims.check`).
public struct VerifiedToken: Equatable, Sendable {
  public let claims: TokenClaims
  /// The `kid` of the key that verified it, for the logs.
  public let keyID: String?
  /// Unix seconds after which it is refused: `exp` plus the leeway.
  public let validUntil: Double
}

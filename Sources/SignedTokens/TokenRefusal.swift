/// Why a signed token was not accepted: logged (never the token), never told to the client,
/// which gets the same 403 whatever the reason.
public enum TokenRefusal: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not three base64url parts, a header or claims that are not JSON objects, no `exp`, a
  /// `crit` header, a claim of the wrong type. The detail names what, never a value.
  case malformed(String)
  /// The header's `kid` names no key in force (no other key is tried).
  case unknownKey
  /// No key in force is for the header's `alg` (`none`, or HS256 when the keys are public ones).
  case algorithmNotAccepted
  /// No key of that `kid` and algorithm verifies the signature (a wrong key, a tampered token).
  case badSignature
  case expired
  case notYetValid
  case wrongAudience
  /// The `session` claim is missing or does not name this session.
  case wrongSession
  /// The `role` claim is missing or does not allow this role.
  case wrongRole

  public var description: String {
    switch self {
    case .malformed(let what): return "malformed (\(what))"
    case .unknownKey: return "unknown kid"
    case .algorithmNotAccepted: return "algorithm not accepted"
    case .badSignature: return "bad signature"
    case .expired: return "expired"
    case .notYetValid: return "not yet valid"
    case .wrongAudience: return "wrong audience"
    case .wrongSession: return "wrong session"
    case .wrongRole: return "wrong role"
    }
  }
}

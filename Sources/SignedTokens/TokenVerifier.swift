/// Verifies JWTs (JWS compact serialization) against the keys in force: synchronous, no I/O,
/// and the wall-clock time comes in as an argument, so the same token, keys and time always
/// give the same answer.
public struct TokenVerifier: Sendable {
  public var keys: [VerificationKey]
  /// Seconds `exp` and `nbf` are stretched by, for clocks that disagree a little.
  public var leeway: Double
  /// When set, `aud` must be (or list) it.
  public var audience: String?

  /// Longer tokens are refused before any parsing.
  public static let maxTokenBytes = 8192

  public init(keys: [VerificationKey] = [], leeway: Double = 30, audience: String? = nil) {
    self.keys = keys
    self.leeway = leeway
    self.audience = audience
  }

  /// Whether any key is in force: if not, no token is ever verified.
  public var isEnabled: Bool { !keys.isEmpty }

  /// Checks, in order: the form, the key (by `kid` if the header names one: an unknown `kid`
  /// is refused rather than tried against other keys), the algorithm (the key's, which the
  /// header must name), the signature, then the claims' times and audience at `wallClock`
  /// (Unix seconds).
  public func verify(_ token: String, at wallClock: Double) -> Result<VerifiedToken, TokenRefusal> {
    let bytes = Array(token.utf8)
    guard bytes.count <= Self.maxTokenBytes else {
      return .failure(.malformed("longer than \(Self.maxTokenBytes) bytes"))
    }
    let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard parts.count == 3 else { return .failure(.malformed("not three parts")) }
    guard let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
      let signature = Base64URL.decode(parts[2])
    else { return .failure(.malformed("a part is not base64url")) }
    let header: JOSEHeader
    do {
      header = try JOSEHeader(json: headerBytes)
    } catch {
      return .failure(error)
    }
    var candidates = keys
    if let kid = header.keyID {
      candidates = keys.filter { $0.id == kid }
      guard !candidates.isEmpty else { return .failure(.unknownKey) }
    }
    candidates = candidates.filter { $0.algorithm.rawValue == header.algorithm }
    guard !candidates.isEmpty else { return .failure(.algorithmNotAccepted) }
    let signingInput = Array(bytes[..<parts[1].endIndex])
    guard let key = candidates.first(where: { $0.isValidSignature(signature, for: signingInput) }) else {
      return .failure(.badSignature)
    }
    let claims: TokenClaims
    do {
      claims = try TokenClaims(json: payload)
    } catch {
      return .failure(error)
    }
    guard wallClock < claims.expires + leeway else { return .failure(.expired) }
    if let nbf = claims.notBefore, wallClock < nbf - leeway { return .failure(.notYetValid) }
    if let audience, claims.audiences?.contains(audience) != true { return .failure(.wrongAudience) }
    return .success(VerifiedToken(claims: claims, keyID: key.id, validUntil: claims.expires + leeway))
  }
}

import SignedTokens

/// Who may connect where: shared secrets per role (server-wide and per session, from a JSON
/// file reloaded on SIGHUP), signed tokens (JWTs verified with the keys of `--jwt-key`, also
/// reloaded on SIGHUP) and the browser origins allowed to upgrade. A request passes if either
/// kind of token accepts it.
public struct AccessPolicy: Sendable {
  /// Accepted tokens for one role; empty means no token is required (unless signed-token keys
  /// are in force).
  public typealias Tokens = [String]

  public struct SessionTokens: Sendable, Equatable {
    public var source: Tokens?
    public var observer: Tokens?

    public init(source: Tokens? = nil, observer: Tokens? = nil) {
      self.source = source
      self.observer = observer
    }
  }

  public var sourceTokens: Tokens = []
  public var observerTokens: Tokens = []
  public var sessions: [String: SessionTokens] = [:]
  /// nil: any origin.
  public var allowedOrigins: Set<String>?
  /// The keys signed tokens are verified with; with none, only shared tokens are accepted.
  /// With keys, every role of every session needs a token (shared or signed).
  public var signedTokens = TokenVerifier()

  public init() {}

  public enum Verdict: Equatable, Sendable {
    case allowed
    /// By a signed token, valid until `validUntil` (wall-clock Unix seconds, the leeway included).
    case allowedUntil(Double)
    /// 401: a token is required and none was presented.
    case missingToken
    /// 403: a token was presented and it is not one of the accepted ones; why, when signed
    /// tokens were tried (for the log, never for the client).
    case wrongToken(TokenRefusal?)
    /// 403: a browser page from an origin not on the list.
    case originNotAllowed
  }

  public mutating func sourceToken(_ t: String?) { sourceTokens = t.map { [$0] } ?? [] }
  public mutating func observerToken(_ t: String?) { observerTokens = t.map { [$0] } ?? [] }

  public var requiresTokens: Bool {
    !sourceTokens.isEmpty || !observerTokens.isEmpty || !sessions.isEmpty || signedTokens.isEnabled
  }

  /// The same answer whatever the state of the session: nothing here depends on whether it exists.
  /// `wallClock` (Unix seconds) is what a signed token's `exp` and `nbf` are checked against.
  public func check(session: String, role: Peer.Role, token: String?, origin: String?, wallClock: Double) -> Verdict {
    if let allowedOrigins, let origin, !allowedOrigins.contains(origin) { return .originNotAllowed }
    let perSession = sessions[session]
    let accepted: Tokens
    switch role {
    case .source: accepted = perSession?.source ?? sourceTokens
    case .observer: accepted = perSession?.observer ?? observerTokens
    }
    if accepted.isEmpty && !signedTokens.isEnabled { return .allowed }
    guard let token, !token.isEmpty else { return .missingToken }
    // Every candidate is compared in full, so timing says nothing about which one nearly matched.
    var match = false
    for candidate in accepted where Self.constantTimeEquals(candidate, token) { match = true }
    if match { return .allowed }
    guard signedTokens.isEnabled else { return .wrongToken(nil) }
    switch signedTokens.verify(token, at: wallClock) {
    case .failure(let why): return .wrongToken(why)
    case .success(let verified):
      let asked: AccessRole = role == .source ? .source : .observer
      if let why = verified.claims.check(session: session, role: asked) { return .wrongToken(why) }
      return .allowedUntil(verified.validUntil)
    }
  }

  /// Compares without an early exit; the time depends only on the lengths.
  public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    var diff = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
      diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
    }
    return diff == 0
  }
}

import Crypto
import RelayCore
import SignedTokens
import Testing
import TouchProtocol

/// Signed tokens in the core: admission by their claims beside shared tokens, the reason in the
/// log (never the token), and the connection closed with 1008 when its token expires.
@Suite struct SignedTokenAdmissionTests {
  static let secret = Array("core-tests-secret-of-at-least-32-bytes".utf8)
  /// The wall clock of every request here (Unix seconds).
  let wall = 1_800_000_000.0

  static func token(_ claims: String, kid: String? = nil, secret: [UInt8] = secret) -> String {
    let header = kid.map { #"{"alg":"HS256","kid":"\#($0)"}"# } ?? #"{"alg":"HS256"}"#
    let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: secret))
    return input + "." + Base64URL.encode(Array(mac))
  }

  func claims(exp: Double? = nil, nbf: Double? = nil, role: String = "source", session: String = #""stage""#) -> String
  {
    var members = [#""exp":\#(exp ?? wall + 600)"#, #""role":"\#(role)""#, #""session":\#(session)"#]
    if let nbf { members.append(#""nbf":\#(nbf)"#) }
    return "{" + members.joined(separator: ",") + "}"
  }

  func access(leeway: Double = 30, _ configure: (inout AccessPolicy) -> Void = { _ in }) -> AccessPolicy {
    var a = AccessPolicy()
    a.signedTokens = TokenVerifier(
      keys: [VerificationKey(id: nil, material: .hmac(SymmetricKey(data: Self.secret)))], leeway: leeway)
    configure(&a)
    return a
  }

  func admit(_ h: CoreHarness, _ target: RequestTarget, _ token: String?, at wall: Double? = nil) -> HTTPResponse? {
    h.admit(target, address: "10.0.0.9", token: token, origin: nil, wallClock: wall ?? self.wall)
  }

  /// The reasons logged for refused tokens since the last call.
  func refusals(_ h: CoreHarness) -> [String] {
    h.takeActions().compactMap(\.logLine).filter { $0.message == "token not accepted" }.map {
      $0.metadata["why"].map { "\($0)" } ?? "?"
    }
  }

  @Test func claimsAllowARoleInSessionsByNameListOrPrefix() {
    let h = CoreHarness(access: access())
    let obs = { (s: String) in RequestTarget.observer(session: s, filter: ObserverFilter()) }
    #expect(admit(h, .source(session: "stage"), Self.token(claims())) == nil)
    #expect(admit(h, obs("stage"), Self.token(claims()))?.status == 403)
    #expect(admit(h, obs("stage"), Self.token(claims(role: "observer"))) == nil)
    #expect(admit(h, obs("stage"), Self.token(claims(role: "both"))) == nil)
    #expect(admit(h, .source(session: "other"), Self.token(claims()))?.status == 403)
    #expect(refusals(h) == ["wrong role", "wrong session"])
    let list = Self.token(claims(role: "both", session: #"["a","b"]"#))
    #expect(admit(h, .source(session: "b"), list) == nil)
    #expect(admit(h, .source(session: "c"), list)?.status == 403)
    let prefix = Self.token(claims(role: "observer", session: #""stage-*""#))
    #expect(admit(h, obs("stage-12"), prefix) == nil)
    #expect(admit(h, obs("backstage"), prefix)?.status == 403)
    #expect(refusals(h) == ["wrong session", "wrong session"])
    h.finish()
  }

  @Test func timesAreCheckedAgainstTheRequestsWallClockWithTheLeeway() {
    let h = CoreHarness(access: access(leeway: 30))
    let src = RequestTarget.source(session: "stage")
    let t = Self.token(claims(exp: wall + 10, nbf: wall - 10))
    #expect(admit(h, src, t) == nil)
    #expect(admit(h, src, t, at: wall + 39) == nil)
    #expect(admit(h, src, t, at: wall + 40)?.status == 403)
    #expect(admit(h, src, t, at: wall - 40) == nil)
    #expect(admit(h, src, t, at: wall - 41)?.status == 403)
    #expect(refusals(h) == ["expired", "not yet valid"])
    h.finish()
  }

  @Test func refusalsAreTheSameWhetherTheSessionExistsAndNeverLogTheToken() throws {
    let h = CoreHarness(access: access())
    let obs = { (s: String) in RequestTarget.observer(session: s, filter: ObserverFilter()) }
    _ = try h.source("stage")
    let forged = Self.token(claims(role: "both"), secret: Array("not-the-secret-but-long-enough-anyway".utf8))
    let existing = admit(h, obs("stage"), forged)
    let missing = admit(h, obs("nowhere"), forged)
    #expect(existing?.status == 403)
    #expect(existing?.status == missing?.status && existing?.body == missing?.body)
    #expect(existing?.headers.map { "\($0)" } == missing?.headers.map { "\($0)" })
    #expect(admit(h, obs("stage"), nil)?.status == 401)
    let lines = h.takeActions().compactMap(\.logLine)
    #expect(lines.filter { $0.level == .notice && $0.message == "token not accepted" }.count == 2)
    for line in lines {
      #expect(!"\(line.message) \(line.metadata)".contains(forged.prefix(20)))
    }
    h.finish()
  }

  @Test func sharedTokensStillWorkAndKeysMakeEveryRoleNeedAToken() {
    let h = CoreHarness(access: access { $0.sourceToken("phone-secret") })
    let obs = RequestTarget.observer(session: "stage", filter: ObserverFilter())
    #expect(admit(h, .source(session: "stage"), "phone-secret") == nil)
    #expect(admit(h, .source(session: "stage"), Self.token(claims())) == nil)
    #expect(admit(h, .source(session: "stage"), "phone-secreT")?.status == 403)
    // No shared observer token, but with keys in force observers need one too.
    #expect(admit(h, obs, nil)?.status == 401)
    #expect(admit(h, obs, Self.token(claims(role: "observer"))) == nil)
    #expect(refusals(h) == ["malformed (not three parts)"])
    h.finish()
  }

  @Test func aPeerIsClosedWith1008WhenItsTokenExpires() throws {
    let h = CoreHarness(at: 5000, access: access(leeway: 30))
    let token = Self.token(claims(exp: wall + 10, role: "observer"))
    let target = RequestTarget.observer(session: "stage", filter: ObserverFilter())
    #expect(admit(h, target, token) == nil)
    let peer = h.opened(h.core.open(target, address: "10.0.0.9", token: token, wallClock: wall, at: 5000))
    _ = h.take(peer)
    // exp + leeway is 40 s after the request's wall clock: 40,000 ms of server time after it.
    #expect(peer.tokenExpiresAt == 45_000)
    #expect(h.core.nextDue == 45_000)
    // The driver ticks before its loop waits: the core asks to be woken at the expiry itself.
    h.tick(at: 5001)
    #expect(h.takeActions().compactMap(\.wakeTime) == [45_000])
    h.tick(at: 44_999)
    #expect(peer.isOpen)
    h.tick(at: 45_000)
    #expect(h.decidedClose(peer)?.code == .policyViolation)
    #expect(h.decidedClose(peer)?.reason == "token expired")
    #expect(h.takeActions().contains { $0.logLine?.message == "token expired, closing" })
    h.core.closed(peer.id, at: 45_010)
    #expect(h.core.nextDue == nil)
    h.finish()
  }

  @Test func aClosedPeerLeavesNoExpiryAndSharedTokensNone() throws {
    let h = CoreHarness(access: access { $0.observerToken("screen") })
    let target = RequestTarget.observer(session: "stage", filter: ObserverFilter())
    let shared = h.opened(h.core.open(target, address: "x", token: "screen", wallClock: wall, at: 0))
    #expect(shared.tokenExpiresAt == nil)
    let token = Self.token(claims(role: "observer"))
    let signed = h.opened(h.core.open(target, address: "x", token: token, wallClock: wall, at: 0))
    #expect(signed.tokenExpiresAt == 630_000)
    h.core.closed(signed.id, at: 10)
    #expect(h.core.nextDue == nil)
    h.tick(at: 700_000)
    #expect(shared.isOpen)
  }
}

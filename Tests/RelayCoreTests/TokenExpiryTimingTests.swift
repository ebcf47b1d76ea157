import Crypto
import RelayCore
import SignedTokens
import Testing

/// A connection opened with a signed token ends when the token does, on virtual time: at
/// `exp` plus the leeway, turned into server time from the wall clock of its request, it gets
/// 1008 "token expired", exactly then and not before; other connections are not touched.
@Suite struct TokenExpiryTimingTests {
  /// The wall clock of every request here (Unix seconds).
  static let wall = 1_800_000_000.0

  static func access(leeway: Double) -> AccessPolicy {
    var a = AccessPolicy()
    a.signedTokens = TokenVerifier(
      keys: [VerificationKey(id: nil, material: .hmac(SymmetricKey(data: SignedTokenAdmissionTests.secret)))],
      leeway: leeway)
    a.observerToken("screen")
    return a
  }

  static func token(expiresIn seconds: Double) -> String {
    SignedTokenAdmissionTests.token(#"{"exp":\#(wall + seconds),"role":"both","session":"stage"}"#)
  }

  @Test func aConnectionIsClosedWith1008AtItsTokensExpiryPlusTheLeeway() throws {
    let h = CoreHarness(access: Self.access(leeway: 30))
    let (signed, _) = try h.observerOnClock(
      "stage", token: Self.token(expiresIn: 10), wallClock: Self.wall, at: 5000)
    let (shared, _) = try h.observerOnClock("stage", token: "screen", wallClock: Self.wall, at: 5000)
    // exp + leeway is 40 s after the request's wall clock: 40,000 ms of server time after it.
    h.passTime(to: 44_999.999)
    #expect(h.takeClose(signed) == nil, "closed before its token expired")
    h.passTime(to: 45_000)
    let close = try #require(h.takeClose(signed))
    #expect(close.code == 1008 && close.reason == "token expired")
    #expect(h.takeLogMessages().contains("token expired, closing"))
    #expect(h.takeDriverActions() == [.pauseReading(signed.id)], "nothing more is read from it")
    // The shared token's connection stays, and nothing else is due.
    h.passTime(to: 1_000_000)
    #expect(h.takeClose(shared) == nil)
    h.dropOnClock(signed)
    h.finish()
  }

  @Test func eachConnectionEndsAtItsOwnTokensTime() throws {
    let h = CoreHarness(access: Self.access(leeway: 0))
    let (late, _) = try h.observerOnClock("stage", token: Self.token(expiresIn: 20), wallClock: Self.wall, at: 0)
    // Asked a second later by the wall clock, opened 500 ms later on the server's.
    let (early, _) = try h.observerOnClock(
      "stage", token: Self.token(expiresIn: 5), wallClock: Self.wall + 1, at: 500)
    h.passTime(to: 4499.999)
    #expect(h.takeClose(early) == nil)
    h.passTime(to: 4500)
    #expect(h.takeClose(early)?.code == 1008)
    h.passTime(to: 19_999.999)
    #expect(h.takeClose(late) == nil)
    h.passTime(to: 20_000)
    #expect(h.takeClose(late)?.code == 1008)
    _ = h.takeDriverActions()
    h.finish()
  }

  /// A connection that ends first takes its expiry with it; one already closing for shutdown
  /// keeps its 1001.
  @Test func aClosedOrClosingConnectionIsNotClosedAgainAtItsExpiry() throws {
    let h = CoreHarness(access: Self.access(leeway: 0)) { $0.drainTimeout = 60 }
    let (gone, _) = try h.observerOnClock("stage", token: Self.token(expiresIn: 2), wallClock: Self.wall, at: 0)
    let (draining, _) = try h.observerOnClock(
      "stage", token: Self.token(expiresIn: 3), wallClock: Self.wall, at: 0)
    h.closeOnClock(gone, at: 1000)
    h.shutdownOnClock(at: 1500)
    h.passTime(to: 10_000)
    #expect(h.takeClose(draining)?.code == 1001)
    #expect(h.takeDriverActions().isEmpty)
    h.finish()
  }
}

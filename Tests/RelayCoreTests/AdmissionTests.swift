import ConformanceSupport
import Logging
import RelayCore
import Testing
import TouchProtocol

/// Who may connect: tokens and origins first, the same answer whether the session exists or
/// not; then the limits, per server.
@Suite struct AdmissionTests {
  @Test func tokensAreCheckedPerRoleAndTheAnswerDoesNotDependOnTheSession() throws {
    var access = AccessPolicy()
    access.sourceToken("s3cret")
    access.observerToken("watch")
    let h = CoreHarness(access: access)
    let src = RequestTarget.source(session: "a")
    #expect(h.admit(src, address: "x", token: nil, origin: nil, wallClock: 0)?.status == 401)
    #expect(h.admit(src, address: "x", token: "watch", origin: nil, wallClock: 0)?.status == 403)
    #expect(h.admit(src, address: "x", token: "s3cret", origin: nil, wallClock: 0) == nil)
    let obs = RequestTarget.observer(session: "a", filter: ObserverFilter())
    let before = h.admit(obs, address: "x", token: "nope", origin: nil, wallClock: 0)
    _ = h.core.open(src, address: "x", at: 0)
    let after = h.admit(obs, address: "x", token: "nope", origin: nil, wallClock: 0)
    #expect(before?.status == 403)
    #expect(before?.body == after?.body && before?.status == after?.status)
    h.finish()
  }

  @Test func originsOutsideTheListAreRefused() {
    var access = AccessPolicy()
    access.allowedOrigins = ["https://screen.example"]
    let h = CoreHarness(access: access)
    let obs = RequestTarget.observer(session: "a", filter: ObserverFilter())
    #expect(h.admit(obs, address: "x", token: nil, origin: "https://evil.example", wallClock: 0)?.status == 403)
    #expect(h.admit(obs, address: "x", token: nil, origin: "https://screen.example", wallClock: 0) == nil)
    // Non-browser clients send no Origin.
    #expect(h.admit(obs, address: "x", token: nil, origin: nil, wallClock: 0) == nil)
    h.finish()
  }

  @Test func eachLimitRefusesWith503AndSaysWhich() {
    let h = CoreHarness {
      $0.limits.maxConnections = 4
      $0.limits.maxConnectionsPerAddress = 2
      $0.limits.maxSessions = 2
      $0.limits.maxObserversPerSession = 1
    }
    let obs = { (s: String) in RequestTarget.observer(session: s, filter: ObserverFilter()) }
    h.core.open(obs("a"), address: "1.1.1.1", at: 0)
    #expect(
      h.admit(obs("a"), address: "2.2.2.2", token: nil, origin: nil, wallClock: 0)?.text.contains("observers")
        == true)
    h.core.open(.source(session: "a"), address: "1.1.1.1", at: 0)
    #expect(
      h.admit(.source(session: "a"), address: "1.1.1.1", token: nil, origin: nil, wallClock: 0)?.text.contains(
        "one address") == true)
    h.core.open(obs("b"), address: "2.2.2.2", at: 0)
    #expect(
      h.admit(obs("c"), address: "3.3.3.3", token: nil, origin: nil, wallClock: 0)?.text.contains("sessions")
        == true)
    h.core.open(.source(session: "b"), address: "3.3.3.3", at: 0)
    let full = h.admit(.source(session: "a"), address: "4.4.4.4", token: nil, origin: nil, wallClock: 0)
    #expect(full?.status == 503)
    #expect(full?.text.contains("too many connections (4)") == true)
  }

  /// A limit's refusal is logged at warning, at most once per client address a minute (server
  /// time), and the next line says how many refusals went unlogged; each address has its own.
  @Test func refusalsAreLoggedOncePerAddressAMinute() {
    let h = CoreHarness { $0.limits.maxConnectionsPerAddress = 1 }
    let src = RequestTarget.source(session: "a")
    h.core.open(src, address: "203.0.113.5", at: 0)
    h.core.open(src, address: "198.51.100.7", at: 0)
    _ = h.takeActions()
    func refusalLines(_ address: String, at t: Double) -> [LogLine] {
      #expect(h.admit(src, address: address, token: nil, origin: nil, wallClock: 0, at: t)?.status == 503)
      return h.takeActions().compactMap {
        guard case .log(let line) = $0, line.message == "connection refused" else { return nil }
        return line
      }
    }
    let first = refusalLines("203.0.113.5", at: 1000)
    #expect(first.count == 1)
    #expect(first.first?.level == .warning)
    #expect(first.first?.metadata["peer"] == "203.0.113.5")
    #expect(first.first?.metadata["why"] == "too many connections from one address (1)")
    #expect(first.first?.metadata["unlogged"] == "0")
    #expect(refusalLines("203.0.113.5", at: 2000).isEmpty)
    #expect(refusalLines("203.0.113.5", at: 60_999).isEmpty)
    // Another address is not held back by the first one's line.
    #expect(refusalLines("198.51.100.7", at: 30_000).count == 1)
    let again = refusalLines("203.0.113.5", at: 61_000)
    #expect(again.count == 1)
    #expect(again.first?.metadata["unlogged"] == "2")
    #expect(refusalLines("198.51.100.7", at: 61_000).isEmpty)
    h.finish()
  }

  /// Below warning nothing is logged (and nothing kept for it).
  @Test func refusalsAreNotLoggedAboveTheLogLevel() {
    let h = CoreHarness {
      $0.limits.maxConnections = 1
      $0.logLevel = .error
    }
    h.core.open(.source(session: "a"), address: "x", at: 0)
    _ = h.takeActions()
    #expect(
      h.admit(.source(session: "a"), address: "y", token: nil, origin: nil, wallClock: 0, at: 5)?.status == 503)
    #expect(h.takeActions().isEmpty)
    h.finish()
  }

  /// The driver learns of a refusal from the actions, for the request it named; an upgrade that
  /// may proceed asks for nothing.
  @Test func aRefusalComesOutAsAnActionForTheRequestTheDriverNamed() {
    let h = CoreHarness { $0.limits.maxConnections = 1 }
    h.core.admit(RequestID(7), .source(session: "a"), address: "x", token: nil, origin: nil, wallClock: 0, at: 0)
    #expect(h.takeDriverActions().isEmpty)
    h.core.open(.source(session: "a"), address: "x", at: 0)
    h.core.admit(RequestID(8), .source(session: "a"), address: "y", token: nil, origin: nil, wallClock: 0, at: 1)
    #expect(h.takeDriverActions() == [.refuseUpgrade(8, 503)])
    h.finish()
  }

  @Test func aStoppingServerRefusesEveryUpgrade() {
    let h = CoreHarness()
    h.core.requestShutdown(at: 0)
    #expect(h.admit(.source(session: "a"), address: "x", token: nil, origin: nil, wallClock: 0)?.status == 503)
  }
}

extension HTTPResponse {
  var text: String { String(decoding: body, as: UTF8.self) }
}

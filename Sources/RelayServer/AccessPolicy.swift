import Foundation
import TouchProtocol

/// Who may connect where: shared secrets per role (server-wide and per session, from a JSON
/// file reloaded on SIGHUP) and the browser origins allowed to upgrade.
struct AccessPolicy: Sendable {
  /// Accepted tokens for one role; empty means no token is required.
  typealias Tokens = [String]

  struct SessionTokens: Sendable, Equatable {
    var source: Tokens?
    var observer: Tokens?
  }

  var sourceTokens: Tokens = []
  var observerTokens: Tokens = []
  var sessions: [String: SessionTokens] = [:]
  /// nil: any origin.
  var allowedOrigins: Set<String>?

  enum Verdict: Equatable {
    case allowed
    /// 401: a token is required and none was presented.
    case missingToken
    /// 403: a token was presented and it is not one of the accepted ones.
    case wrongToken
    /// 403: a browser page from an origin not on the list.
    case originNotAllowed
  }

  mutating func sourceToken(_ t: String?) { sourceTokens = t.map { [$0] } ?? [] }
  mutating func observerToken(_ t: String?) { observerTokens = t.map { [$0] } ?? [] }

  var requiresTokens: Bool {
    !sourceTokens.isEmpty || !observerTokens.isEmpty || !sessions.isEmpty
  }

  /// The same answer whatever the state of the session: nothing here depends on whether it exists.
  func check(session: String, role: Connection.Role, token: String?, origin: String?) -> Verdict {
    if let allowedOrigins, let origin, !allowedOrigins.contains(origin) { return .originNotAllowed }
    let perSession = sessions[session]
    let accepted: Tokens
    switch role {
    case .source: accepted = perSession?.source ?? sourceTokens
    case .observer: accepted = perSession?.observer ?? observerTokens
    }
    if accepted.isEmpty { return .allowed }
    guard let token, !token.isEmpty else { return .missingToken }
    // Every candidate is compared in full, so timing says nothing about which one nearly matched.
    var match = false
    for candidate in accepted where Self.constantTimeEquals(candidate, token) { match = true }
    return match ? .allowed : .wrongToken
  }

  /// Compares without an early exit; the time depends only on the lengths.
  static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    var diff = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
      diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
    }
    return diff == 0
  }

  /// The per-session token file: `{"session": {"source": "t" or ["t1","t2"], "observer": ...}}`.
  static func loadSessionTokens(path: String) throws -> [String: SessionTokens] {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ConfigurationError("cannot read tokens file '\(path)': \(error.localizedDescription)")
    }
    guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw ConfigurationError("tokens file '\(path)' is not a JSON object of sessions")
    }
    var out: [String: SessionTokens] = [:]
    for (session, value) in root {
      guard SessionName.isValid(session) else {
        throw ConfigurationError("tokens file: '\(session.prefix(64))' is not a valid session name")
      }
      guard let roles = value as? [String: Any] else {
        throw ConfigurationError("tokens file: session '\(session)' must map to {\"source\": ..., \"observer\": ...}")
      }
      var entry = SessionTokens()
      for (role, tokens) in roles {
        let list: [String]
        if let one = tokens as? String {
          list = [one]
        } else if let many = tokens as? [String] {
          list = many
        } else {
          throw ConfigurationError("tokens file: \(session).\(role) must be a string or a list of strings")
        }
        guard !list.isEmpty, list.allSatisfy({ !$0.isEmpty }) else {
          throw ConfigurationError("tokens file: \(session).\(role) has an empty token")
        }
        switch role {
        case "source": entry.source = list
        case "observer": entry.observer = list
        default: throw ConfigurationError("tokens file: unknown role '\(role)' in session '\(session)'")
        }
      }
      out[session] = entry
    }
    return out
  }
}

public struct ConfigurationError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// The claims of a JWT the relay reads (RFC 7519 §4.1 and two of its own). Times are
/// NumericDates: Unix seconds, possibly with a fraction.
public struct TokenClaims: Equatable, Sendable {
  public let expires: Double
  public let notBefore: Double?
  /// `aud`: one string or a list; nil when absent.
  public let audiences: [String]?
  /// `role`: `source`, `observer` or `both`; nil when absent or unknown (refused as wrong role).
  public let roles: Set<AccessRole>?
  /// `session`: a name, a prefix pattern or a list of either; nil when absent.
  public let sessions: [SessionPattern]?

  /// From the decoded payload bytes. A claim of the wrong type makes the whole token
  /// malformed, so no claim is ever silently ignored.
  public init(json bytes: [UInt8]) throws(TokenRefusal) {
    let value: JOSEJSON
    do {
      value = try JOSEJSON.parse(bytes)
    } catch {
      throw .malformed("claims are not JSON")
    }
    guard let c = value.object else { throw .malformed("claims are not an object") }
    guard let exp = c["exp"] else { throw .malformed("no exp") }
    guard let expires = exp.number else { throw .malformed("exp is not a number") }
    self.expires = expires
    if let nbf = c["nbf"] {
      guard let n = nbf.number else { throw .malformed("nbf is not a number") }
      notBefore = n
    } else {
      notBefore = nil
    }
    audiences = try Self.strings(c["aud"], "aud")
    switch c["role"] {
    case nil: roles = nil
    case .string("source"): roles = [.source]
    case .string("observer"): roles = [.observer]
    case .string("both"): roles = [.source, .observer]
    case .string: roles = nil
    default: throw .malformed("role is not a string")
    }
    sessions = try Self.strings(c["session"], "session")?.map(SessionPattern.init)
  }

  /// Whether these claims let a connection of `role` into `session`.
  public func check(session: String, role: AccessRole) -> TokenRefusal? {
    guard let sessions, sessions.contains(where: { $0.matches(session) }) else { return .wrongSession }
    guard let roles, roles.contains(role) else { return .wrongRole }
    return nil
  }

  private static func strings(_ value: JOSEJSON?, _ name: String) throws(TokenRefusal) -> [String]? {
    switch value {
    case nil: return nil
    case .string(let s): return [s]
    case .array(let items):
      var out: [String] = []
      for item in items {
        guard let s = item.string else { throw .malformed("\(name) is not a string or a list of strings") }
        out.append(s)
      }
      return out
    default: throw .malformed("\(name) is not a string or a list of strings")
    }
  }
}

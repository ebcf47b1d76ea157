import RelayCore
import TouchProtocol

/// The per-session tokens file (`--tokens-file`), read at start-up and on SIGHUP.
enum TokensFile {
  /// The per-session token file: `{"session": {"source": "t" or ["t1","t2"], "observer": ...}}`.
  static func loadSessionTokens(path: String) throws -> [String: AccessPolicy.SessionTokens] {
    let text: String
    do {
      text = String(decoding: try FileContents.bytes(atPath: path), as: UTF8.self)
    } catch {
      throw ConfigurationError("cannot read tokens file '\(path)': \(error)")
    }
    guard let root = JSONValue(parsing: text)?.members else {
      throw ConfigurationError("tokens file '\(path)' is not a JSON object of sessions")
    }
    var out: [String: AccessPolicy.SessionTokens] = [:]
    for (session, value) in root {
      guard SessionName.isValid(session) else {
        throw ConfigurationError("tokens file: '\(session.prefix(64))' is not a valid session name")
      }
      guard let roles = value.members else {
        throw ConfigurationError("tokens file: session '\(session)' must map to {\"source\": ..., \"observer\": ...}")
      }
      var entry = AccessPolicy.SessionTokens()
      for (role, tokens) in roles {
        let list: [String]
        if let one = tokens.stringValue {
          list = [one]
        } else if let many = tokens.arrayValue?.compactMap(\.stringValue), many.count == tokens.arrayValue?.count {
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

import TouchProtocol

/// The peer a WebSocket request path asks to be, parsed before any upgrade so a bad one gets a
/// plain HTTP answer.
public enum RequestTarget: Equatable, Sendable {
  case source(session: String)
  case observer(session: String, filter: ObserverFilter)

  public enum Refusal: Error, Equatable {
    /// 404: no such path.
    case notFound
    /// 400, with the reason sent as the body.
    case badRequest(String)
  }

  /// `path` without the query; `args` are the decoded `name=value` pairs of the query.
  public static func parse(path: String, args: [(String, String)]) -> Result<RequestTarget, Refusal> {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 4, parts[0].isEmpty, parts[1] == "v1" else { return .failure(.notFound) }
    let session = String(parts[3])
    guard SessionName.isValid(session) else {
      return .failure(.badRequest("session names match [A-Za-z0-9_-]{1,64}"))
    }
    switch parts[2] {
    case "source": return .success(.source(session: session))
    case "observe":
      return ObserverFilter.parse(args).map { .observer(session: session, filter: $0) }
    default: return .failure(.notFound)
    }
  }
}

extension RequestTarget {
  public var sessionName: String {
    switch self {
    case .source(let s), .observer(let s, _): return s
    }
  }
}

import TouchProtocol

/// What a request path asks for, parsed before any upgrade so a bad one gets a plain HTTP answer.
enum RequestTarget: Equatable {
  case source(session: String)
  case observer(session: String, filter: ObserverFilter)
  case healthz

  enum Refusal: Error, Equatable {
    /// 404: no such path.
    case notFound
    /// 400, with the reason sent as the body.
    case badRequest(String)
  }

  /// `path` without the query; `args` are the decoded `name=value` pairs of the query.
  static func parse(path: String, args: [(String, String)]) -> Result<RequestTarget, Refusal> {
    if path == "/healthz" { return .success(.healthz) }
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

/// What an observer asked to receive (`?raw=1&source=ID&gestures=tap,pinch`).
struct ObserverFilter: Equatable {
  var raw = false
  var source: String?
  var gestures: Set<GestureKind>?

  static func parse(_ args: [(String, String)]) -> Result<ObserverFilter, RequestTarget.Refusal> {
    var f = ObserverFilter()
    for (name, value) in args {
      switch name {
      case "raw":
        guard value == "1" || value == "0" || value == "true" || value == "false" else {
          return .failure(.badRequest("raw must be 1 or 0"))
        }
        f.raw = value == "1" || value == "true"
      case "source":
        guard !value.isEmpty, value.utf8.count <= 64 else { return .failure(.badRequest("bad source id")) }
        f.source = value
      case "gestures":
        var set = Set<GestureKind>()
        for name in value.split(separator: ",") {
          guard let g = GestureKind(rawValue: String(name)) else {
            let known = GestureKind.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(.badRequest("unknown gesture '\(name.prefix(32))'; known: \(known)"))
          }
          set.insert(g)
        }
        f.gestures = set
      case "token":
        // Checked by the access policy before the upgrade.
        continue
      default:
        return .failure(.badRequest("unknown query parameter '\(name.prefix(32))'"))
      }
    }
    return .success(f)
  }

  func wants(source id: String) -> Bool { source == nil || source == id }

  func wants(_ gesture: GestureKind) -> Bool { gestures?.contains(gesture) ?? true }
}

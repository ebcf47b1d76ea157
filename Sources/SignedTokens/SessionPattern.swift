/// One entry of a token's `session` claim: a session's name, or a prefix ending in `*`
/// (`stage-*` allows `stage-1` and `stage-left`; `*` alone allows every session). A `*`
/// anywhere else is part of a name, which no valid session name is.
public enum SessionPattern: Equatable, Sendable {
  case name(String)
  case prefix(String)

  public init(_ text: String) {
    if text.hasSuffix("*") {
      self = .prefix(String(text.dropLast()))
    } else {
      self = .name(text)
    }
  }

  public func matches(_ session: String) -> Bool {
    switch self {
    case .name(let n): return n == session
    case .prefix(let p): return session.hasPrefix(p)
    }
  }
}

import CLibWebSockets
import TouchProtocol

/// Who may open a WebSocket, decided in plain HTTP before the upgrade.
extension Relay {
  // MARK: - Admission

  /// Whether an upgrade may proceed, decided before any WebSocket traffic: tokens and origin
  /// first (the same answer whether the session exists or not), then capacity.
  func admit(_ target: RequestTarget, peer: String, token: String?, origin: String?) -> HTTPResponse? {
    let role: Connection.Role
    switch target {
    case .source: role = .source
    case .observer: role = .observer
    case .healthz: return .notFound
    }
    switch access.check(session: target.sessionName, role: role, token: token, origin: origin) {
    case .allowed: break
    case .missingToken:
      return HTTPResponse(
        status: 401, body: "a token is required: ?token=... or Authorization: Bearer ...\n",
        headers: [("WWW-Authenticate", "Bearer")])
    case .wrongToken: return HTTPResponse(status: 403, body: "token not accepted\n")
    case .originNotAllowed: return HTTPResponse(status: 403, body: "origin not allowed\n")
    }
    let l = config.limits
    if connections.count >= l.maxConnections {
      return HTTPResponse(status: 503, body: "too many connections (\(l.maxConnections))\n")
    }
    if connectionsByAddress[peer, default: 0] >= l.maxConnectionsPerAddress {
      return HTTPResponse(status: 503, body: "too many connections from one address (\(l.maxConnectionsPerAddress))\n")
    }
    let session = sessions[target.sessionName]
    if session == nil, sessions.count >= l.maxSessions {
      return HTTPResponse(status: 503, body: "too many sessions (\(l.maxSessions))\n")
    }
    if role == .observer, let session, session.observers.count >= l.maxObserversPerSession {
      return HTTPResponse(status: 503, body: "too many observers in this session (\(l.maxObserversPerSession))\n")
    }
    return nil
  }
}

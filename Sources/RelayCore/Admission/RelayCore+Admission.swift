import TouchProtocol

/// Who may open a peer, decided in plain HTTP before the WebSocket upgrade.
extension RelayCore {
  /// Whether an upgrade to `target` may proceed; nil when it may, the HTTP answer otherwise.
  /// Tokens and origin first (the same answer whether the session exists or not), then
  /// capacity. `address` is the client's, as the limits count it.
  public func admit(_ target: RequestTarget, address: String, token: String?, origin: String?) -> HTTPResponse? {
    if stopping { return HTTPResponse(status: 503, body: "shutting down\n") }
    let role: Peer.Role
    switch target {
    case .source: role = .source
    case .observer: role = .observer
    }
    if let refusal = accessRefusal(session: target.sessionName, role: role, token: token, origin: origin) {
      return refusal
    }
    let l = configuration.limits
    if peers.count >= l.maxConnections {
      return HTTPResponse(status: 503, body: "too many connections (\(l.maxConnections))\n")
    }
    if peersByAddress[address, default: 0] >= l.maxConnectionsPerAddress {
      return HTTPResponse(
        status: 503, body: "too many connections from one address (\(l.maxConnectionsPerAddress))\n")
    }
    let session = sessions[target.sessionName]
    if session == nil, sessions.count >= l.maxSessions {
      return HTTPResponse(status: 503, body: "too many sessions (\(l.maxSessions))\n")
    }
    if role == .observer, let session, session.observers.count >= l.maxObserversPerSession {
      return HTTPResponse(
        status: 503, body: "too many observers in this session (\(l.maxObserversPerSession))\n")
    }
    return nil
  }

  /// The answer to a request for `role`'s access to `session` that tokens or origin refuse,
  /// nil when allowed: 401 without a token, 403 with a wrong one or from an origin not allowed.
  /// The same whether the session exists or not. HTTP routes that show a session's data (its
  /// recordings) answer with it too.
  public func accessRefusal(session: String, role: Peer.Role, token: String?, origin: String?) -> HTTPResponse? {
    switch access.check(session: session, role: role, token: token, origin: origin) {
    case .allowed: return nil
    case .missingToken:
      return HTTPResponse(
        status: 401, body: "a token is required: ?token=... or Authorization: Bearer ...\n",
        headers: [("WWW-Authenticate", "Bearer")])
    case .wrongToken: return HTTPResponse(status: 403, body: "token not accepted\n")
    case .originNotAllowed: return HTTPResponse(status: 403, body: "origin not allowed\n")
    }
  }
}

import TouchProtocol

/// Who may open a peer, decided in plain HTTP before the WebSocket upgrade.
extension RelayCore {
  /// Whether the upgrade `request` (the driver's name for it) to `target` may proceed: it may
  /// unless a `.refuseUpgrade(request, response)` action says otherwise, with the HTTP answer.
  /// Tokens and origin first (the same answer whether the session exists or not), then
  /// capacity. `address` is the client's, as the limits count it; `wallClock` is the request's
  /// wall-clock time in Unix seconds, which signed tokens' `exp` and `nbf` are checked against
  /// (the core has no clock: the driver reads it, so the same request always gets the same answer).
  /// A limit's refusal is logged at warning, at most once per address a minute (`RefusalLog`)
  /// by server time `rt` (nil: the time of the core's last event).
  public func admit(
    _ request: RequestID, _ target: RequestTarget, address: String, token: String?, origin: String?,
    wallClock: Double, at rt: Double? = nil
  ) {
    if let rt { now = rt }
    guard let refusal = refusal(target, address: address, token: token, origin: origin, wallClock: wallClock) else {
      return
    }
    emit(.refuseUpgrade(request, refusal))
  }

  /// `admit`'s answer: nil when the upgrade may proceed.
  private func refusal(
    _ target: RequestTarget, address: String, token: String?, origin: String?, wallClock: Double
  ) -> HTTPResponse? {
    if stopping { return HTTPResponse(status: 503, body: "shutting down\n") }
    let role: Peer.Role
    switch target {
    case .source: role = .source
    case .observer: role = .observer
    }
    if let refusal = accessRefusal(
      session: target.sessionName, role: role, token: token, origin: origin, address: address, wallClock: wallClock)
    {
      return refusal
    }
    guard let why = capacityRefusal(target, role: role, address: address) else { return nil }
    if .warning >= configuration.logLevel, let unlogged = admission.refusalLog.refused(address, at: now) {
      log(
        .warning, "connection refused",
        [
          "why": "\(why)", "status": "503", "role": "\(role.rawValue)", "session": "\(target.sessionName)",
          "peer": "\(address)", "unlogged": "\(unlogged)",
        ])
    }
    return HTTPResponse(status: 503, body: why + "\n")
  }

  /// Which limit an upgrade would exceed, as its 503 says it; nil: none.
  private func capacityRefusal(_ target: RequestTarget, role: Peer.Role, address: String) -> String? {
    let l = configuration.limits
    if peerCount >= l.maxConnections {
      return "too many connections (\(l.maxConnections))"
    }
    if directory.peersByAddress[address, default: 0] >= l.maxConnectionsPerAddress {
      return "too many connections from one address (\(l.maxConnectionsPerAddress))"
    }
    let session = sessions[target.sessionName]
    if session == nil, sessions.count >= l.maxSessions {
      return "too many sessions (\(l.maxSessions))"
    }
    if role == .observer, let session, session.observers.count >= l.maxObserversPerSession {
      return "too many observers in this session (\(l.maxObserversPerSession))"
    }
    return nil
  }

  /// The answer to a request for `role`'s access to `session` that tokens or origin refuse,
  /// nil when allowed: 401 without a token, 403 with a wrong one or from an origin not allowed.
  /// The same whether the session exists or not; why a token was not accepted is logged for the
  /// operator, never told to the client. HTTP routes that show a session's data (its
  /// recordings) answer with it too.
  public func accessRefusal(
    session: String, role: Peer.Role, token: String?, origin: String?, address: String, wallClock: Double
  ) -> HTTPResponse? {
    switch access.check(session: session, role: role, token: token, origin: origin, wallClock: wallClock) {
    case .allowed, .allowedUntil: return nil
    case .missingToken:
      return HTTPResponse(
        status: 401, body: "a token is required: ?token=... or Authorization: Bearer ...\n",
        headers: [("WWW-Authenticate", "Bearer")])
    case .wrongToken(let why):
      log(
        .notice, "token not accepted",
        [
          "why": "\(why?.description ?? "not a shared token")", "role": "\(role.rawValue)", "session": "\(session)",
          "peer": "\(address)",
        ])
      return HTTPResponse(status: 403, body: "token not accepted\n")
    case .originNotAllowed: return HTTPResponse(status: 403, body: "origin not allowed\n")
    }
  }
}

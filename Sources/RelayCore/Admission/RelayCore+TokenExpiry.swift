/// Connections opened with a signed token end when the token does: closed with 1008 "token
/// expired" at `exp` plus the leeway. The core has no wall clock, so the expiry becomes a server
/// time when the connection opens, from the wall-clock time the driver gives with it
/// (`exp + leeway − wallClock` seconds after `rt`), and is fired by `advance(to:)` like any deadline.
extension RelayCore {
  /// The reason sent with the close.
  public static let tokenExpiredReason = "token expired"

  /// Finds when `peer`'s token lets it go, and queues that. Called by `open`: the upgrade's
  /// admission and the opening are two driver callbacks, and the core keeps nothing between
  /// them, so the token is verified again (keys replaced in between refuse it here).
  func scheduleTokenExpiry(_ peer: Peer, token: String?, wallClock: Double?, at rt: Double) {
    guard access.signedTokens.isEnabled, let wallClock else { return }
    switch access.check(session: peer.session.name, role: peer.role, token: token, origin: nil, wallClock: wallClock) {
    case .allowed:
      return
    case .allowedUntil(let validUntil):
      let expiry = TokenExpiry(peer: peer, due: rt + (validUntil - wallClock) * 1000)
      peer.tokenExpiry = expiry
      timers.setTokenExpiry(expiry, due: expiry.due)
    case .missingToken, .wrongToken, .originNotAllowed:
      // Only if the keys were replaced, or the token expired, between the two callbacks.
      log(.notice, "token no longer accepted when the connection opened", ["conn": "\(peer.serial)"])
      stopReading(peer)
      close(peer, .policyViolation, "token not accepted", drain: false)
    }
  }

  /// Closes every peer whose token expired by `rt`.
  func expireTokens(at rt: Double) {
    while let expiry = timers.popTokenExpiry(dueBy: rt) {
      // Left on the peer (out of the queue): `tokenExpiresAt` still says when it was.
      let peer = expiry.peer
      // A peer already closing (shutdown, its own close) keeps the close it has.
      guard peer.isOpen else { continue }
      log(
        .notice, "token expired, closing",
        ["conn": "\(peer.serial)", "role": "\(peer.role.rawValue)", "session": "\(peer.session.name)"])
      stopReading(peer)
      close(peer, .policyViolation, Self.tokenExpiredReason, drain: false)
    }
  }

  /// `peer` is gone: its expiry too.
  func forgetTokenExpiry(_ peer: Peer) {
    guard let expiry = peer.tokenExpiry, expiry.deadlineIndex != nil else { return }
    timers.removeTokenExpiry(expiry)
  }
}

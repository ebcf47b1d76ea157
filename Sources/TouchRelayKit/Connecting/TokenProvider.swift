/// Called before every connection attempt, so a reconnect presents a fresh token (a signed
/// token may have expired since the last one). Nil means no token. The token is sent as
/// `Authorization: Bearer`, never in the URL (which logs and proxies keep).
public typealias TokenProvider = @Sendable () async throws -> String?

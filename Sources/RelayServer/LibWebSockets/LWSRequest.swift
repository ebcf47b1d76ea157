import CLibWebSockets
import RelayCore

/// What a request says, read from its wsi with lws' header calls (service thread only).
enum LWSRequest {
  /// The path and the decoded `name=value` query arguments.
  static func target(of wsi: OpaquePointer) -> (path: String, args: [(String, String)]) {
    var buf = [CChar](repeating: 0, count: 2048)
    let n = lws_hdr_copy(wsi, &buf, Int32(buf.count), WSI_TOKEN_GET_URI)
    let path = n > 0 ? text(buf, count: Int(n)) : ""
    var args: [(String, String)] = []
    for index in 0..<32 {
      let m = lws_hdr_copy_fragment(wsi, &buf, Int32(buf.count), WSI_TOKEN_HTTP_URI_ARGS, Int32(index))
      if m <= 0 { break }
      let arg = text(buf, count: Int(m))
      if let eq = arg.firstIndex(of: "=") {
        args.append((String(arg[..<eq]), String(arg[arg.index(after: eq)...])))
      } else {
        args.append((arg, ""))
      }
    }
    return (path, args)
  }

  /// The request as the HTTP routes see it.
  static func request(of wsi: OpaquePointer, trusting proxies: TrustedProxies) -> HTTPRequest {
    let (path, args) = target(of: wsi)
    let host = header(WSI_TOKEN_HOST, of: wsi, max: 1024)
    return HTTPRequest(
      path: path, args: args, host: host, isTLS: lws_is_ssl(wsi) != 0, token: token(of: wsi, args: args),
      origin: header(WSI_TOKEN_ORIGIN, of: wsi), peer: client(of: wsi, trusting: proxies),
      wallClock: WallClock.nowSeconds())
  }

  /// A request header's value, or nil when absent (or longer than `max`).
  static func header(_ token: lws_token_indexes, of wsi: OpaquePointer, max: Int = 8192) -> String? {
    let n = lws_hdr_total_length(wsi, token)
    guard n > 0, n < max else { return nil }
    var buf = [CChar](repeating: 0, count: Int(n) + 1)
    let m = lws_hdr_copy(wsi, &buf, Int32(buf.count), token)
    return m > 0 ? text(buf, count: Int(m)) : nil
  }

  /// `?token=` or `Authorization: Bearer`.
  static func token(of wsi: OpaquePointer, args: [(String, String)]) -> String? {
    if let t = args.first(where: { $0.0 == "token" })?.1 { return t }
    guard let auth = header(WSI_TOKEN_HTTP_AUTHORIZATION, of: wsi) else { return nil }
    let parts = auth.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    // Spaces and tabs around the token (a header holds no line breaks).
    let token = parts[1].drop(while: \.isWhitespace)
    return String(token.reversed().drop(while: \.isWhitespace).reversed())
  }

  /// The client's address, as the limits count it and the logs name it: the peer's, or from a
  /// trusted proxy the one its `X-Forwarded-For` names (see `TrustedProxies`).
  static func client(of wsi: OpaquePointer, trusting proxies: TrustedProxies) -> String {
    let peer = peer(of: wsi)
    guard !proxies.networks.isEmpty else { return peer }
    return proxies.client(peer: peer, forwardedFor: header(WSI_TOKEN_X_FORWARDED_FOR, of: wsi))
  }

  /// The address the connection comes from.
  static func peer(of wsi: OpaquePointer) -> String {
    var buf = [CChar](repeating: 0, count: 128)
    guard lws_get_peer_simple(wsi, &buf, buf.count) != nil else { return "?" }
    return text(buf, count: buf.firstIndex(of: 0) ?? buf.count)
  }

  private static func text(_ buf: [CChar], count: Int) -> String {
    String(decoding: buf.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

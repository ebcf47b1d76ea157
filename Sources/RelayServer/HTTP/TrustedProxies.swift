/// `--trusted-proxy`: behind a load balancer or reverse proxy every connection comes from the
/// proxy's address, so the per-address limit and the logs would see one client for the whole
/// site. From a trusted proxy the client is taken from `X-Forwarded-For` instead, as nginx's
/// `real_ip_recursive on` does: the right-most address that is not itself a trusted proxy
/// (each proxy appends the address it got the request from, so anything left of that is what
/// the client claimed). The header of a peer that is not trusted is ignored: anyone can send it.
struct TrustedProxies {
  let networks: [IPNetwork]

  init(_ networks: [IPNetwork]) {
    self.networks = networks
  }

  /// The client behind a request from `peer` with this `X-Forwarded-For` (nil: none). A header
  /// with anything but addresses in it names no one: the peer is the client then.
  func client(peer: String, forwardedFor: String?) -> String {
    guard let forwardedFor, !networks.isEmpty, let p = IPAddress.bytes(peer), isTrusted(p) else { return peer }
    var hops: [[UInt8]] = []
    for entry in forwardedFor.split(separator: ",", omittingEmptySubsequences: false) {
      guard let address = Self.address(in: entry) else { return peer }
      hops.append(address)
    }
    // All trusted: the left-most is as far as the chain goes.
    let client = hops.last { !isTrusted($0) } ?? hops.first
    return client.map(IPAddress.text) ?? peer
  }

  func isTrusted(_ address: [UInt8]) -> Bool {
    networks.contains { $0.contains(address) }
  }

  /// One entry of the header: an address, optionally with a port (`192.0.2.1:4711`,
  /// `[2001:db8::1]:4711`) as some proxies write it; nil if it is anything else.
  private static func address(in entry: Substring) -> [UInt8]? {
    var s = entry.drop { $0 == " " || $0 == "\t" }
    while s.last == " " || s.last == "\t" { s = s.dropLast() }
    if s.first == "[", let close = s.firstIndex(of: "]") {
      let rest = s[s.index(after: close)...]
      guard rest.isEmpty || (rest.first == ":" && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
      s = s[s.index(after: s.startIndex)..<close]
    } else if s.filter({ $0 == ":" }).count == 1, let colon = s.firstIndex(of: ":") {
      guard s[s.index(after: colon)...].allSatisfy(\.isNumber) else { return nil }
      s = s[..<colon]
    }
    return IPAddress.bytes(String(s))
  }
}

#if canImport(Glibc)
  import Glibc
#endif

/// A numeric IPv4 or IPv6 address as bytes (4 or 16) and back, for matching addresses against
/// `--trusted-proxy` networks and naming clients in one form: an IPv4-mapped IPv6 address
/// (`::ffff:192.0.2.1`, as a dual-stack listener sees IPv4 peers) is its IPv4 address.
enum IPAddress {
  static func bytes(_ text: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
    var v6 = in6_addr()
    guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
    let b = withUnsafeBytes(of: v6) { Array($0) }
    return b.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) ? Array(b.suffix(4)) : b
  }

  /// The address in its usual text form (`2001:db8::1`, lower case, zeros compressed).
  static func text(_ bytes: [UInt8]) -> String {
    var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    let family = bytes.count == 4 ? AF_INET : AF_INET6
    let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &out, socklen_t(out.count)) != nil }
    return ok ? String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
  }
}

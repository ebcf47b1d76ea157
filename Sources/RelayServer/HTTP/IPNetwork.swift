/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `2001:db8::/32`; a bare address is
/// a network of one), as `--trusted-proxy` takes it. Host bits set in the address are ignored,
/// as nginx's `set_real_ip_from` does.
public struct IPNetwork: Sendable, Equatable {
  /// The network's address, host bits cleared: 4 bytes for IPv4, 16 for IPv6.
  let address: [UInt8]
  let prefixLength: Int

  public struct Invalid: Error, CustomStringConvertible, Sendable {
    public let description: String
  }

  public init(_ text: String) throws {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count <= 2, let address = IPAddress.bytes(String(parts[0])) else {
      throw Invalid(description: "'\(text)' is not an IPv4 or IPv6 address or network (10.0.0.0/8, 2001:db8::/32)")
    }
    let bits = address.count * 8
    var length = bits
    if parts.count == 2 {
      guard !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(parts[1]),
        n <= bits
      else { throw Invalid(description: "'\(text)': the prefix length must be from 0 to \(bits)") }
      length = n
    }
    self.address = Self.masked(address, length)
    prefixLength = length
  }

  /// Whether the address (as `IPAddress.bytes` gives it) is in this network.
  func contains(_ bytes: [UInt8]) -> Bool {
    bytes.count == address.count && Self.masked(bytes, prefixLength) == address
  }

  private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
    bytes.enumerated().map { i, byte in
      let keep = min(max(length - i * 8, 0), 8)
      return keep == 8 ? byte : byte & ~(0xFF >> UInt8(keep))
    }
  }
}

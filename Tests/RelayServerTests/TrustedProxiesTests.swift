import Testing

@testable import RelayServer

/// `--trusted-proxy`: which networks parse, what they contain, and which client an
/// `X-Forwarded-For` names (nginx's `real_ip_recursive on`).
@Suite struct TrustedProxiesTests {
  func network(_ text: String) throws -> IPNetwork { try IPNetwork(text) }

  func bytes(_ text: String) throws -> [UInt8] { try #require(IPAddress.bytes(text), "\(text)") }

  @Test func networksContainTheirAddressesOnly() throws {
    #expect(try network("10.0.0.0/8").contains(bytes("10.200.3.4")))
    #expect(try !network("10.0.0.0/8").contains(bytes("11.0.0.1")))
    // Host bits are ignored, as nginx does.
    #expect(try network("10.1.2.3/8").contains(bytes("10.9.9.9")))
    #expect(try network("192.168.1.0/23").contains(bytes("192.168.0.7")))
    #expect(try !network("192.168.1.0/23").contains(bytes("192.168.2.7")))
    #expect(try network("127.0.0.1").contains(bytes("127.0.0.1")))
    #expect(try !network("127.0.0.1").contains(bytes("127.0.0.2")))
    #expect(try network("0.0.0.0/0").contains(bytes("203.0.113.5")))
    #expect(try network("2001:db8::/32").contains(bytes("2001:DB8:0:0:1::1")))
    #expect(try !network("2001:db8::/32").contains(bytes("2001:db9::1")))
    #expect(try network("::1").contains(bytes("::1")))
    // No family contains the other's addresses; an IPv4-mapped peer is its IPv4 address.
    #expect(try !network("::/0").contains(bytes("10.0.0.1")))
    #expect(try !network("0.0.0.0/0").contains(bytes("2001:db8::1")))
    #expect(try network("10.0.0.0/8").contains(bytes("::ffff:10.0.0.1")))
  }

  @Test(arguments: [
    ("10.0.0.0/33", "the prefix length must be from 0 to 32"), ("::/129", "the prefix length must be from 0 to 128"),
    ("10.0.0.0/", "the prefix length"), ("10.0.0.0/-1", "the prefix length"), ("10.0.0.0/ 8", "the prefix length"),
    ("10.0.0.0/8/1", "is not an IPv4 or IPv6 address"), ("proxy.example", "is not an IPv4 or IPv6 address"),
    ("10.0.0", "is not an IPv4 or IPv6 address"), ("", "is not an IPv4 or IPv6 address"),
  ])
  func aBadNetworkIsRefusedAndSaysWhy(text: String, why: String) {
    do {
      _ = try IPNetwork(text)
      Issue.record("'\(text)' was accepted")
    } catch {
      #expect("\(error)".contains(why), "\(error)")
    }
    var c = RelayConfiguration()
    c.trustedProxies = [text]
    #expect(throws: RelayConfiguration.InvalidValue.self) { try c.validate() }
  }

  @Test func theOptionTakesSeveralNetworksAndNamesABadOne() throws {
    let c = try RelayOption.configuration(
      flags: [:], environment: ["TOUCH_RELAY_TRUSTED_PROXY": "10.0.0.0/8, ::1,192.168.0.0/16"])
    #expect(c.trustedProxies == ["10.0.0.0/8", "::1", "192.168.0.0/16"])
    do {
      _ = try RelayOption.configuration(flags: ["trusted-proxy": "10.0.0.0/8,10.0.0.0/33"], environment: [:])
      Issue.record("accepted")
    } catch {
      #expect("\(error)" == "trusted proxy '10.0.0.0/33': the prefix length must be from 0 to 32")
    }
  }

  @Test func theClientIsTheRightMostAddressNotTrusted() throws {
    let proxies = TrustedProxies([try network("10.0.0.0/8"), try network("127.0.0.1")])
    func client(_ peer: String, _ header: String?) -> String { proxies.client(peer: peer, forwardedFor: header) }
    #expect(client("127.0.0.1", "203.0.113.5") == "203.0.113.5")
    #expect(client("10.0.0.9", "203.0.113.5, 10.0.0.2") == "203.0.113.5")
    // Left of the first untrusted hop is what the client claimed: not believed.
    #expect(client("10.0.0.9", "1.1.1.1, 203.0.113.5, 10.0.0.2") == "203.0.113.5")
    #expect(client("10.0.0.9", "10.0.0.3,10.0.0.2") == "10.0.0.3")
    #expect(client("10.0.0.9", "[2001:DB8::1]:443") == "2001:db8::1")
    #expect(client("10.0.0.9", "203.0.113.5:4711") == "203.0.113.5")
    #expect(client("10.0.0.9", "2001:db8:0:0::7") == "2001:db8::7")
    #expect(client("::ffff:127.0.0.1", "203.0.113.5") == "203.0.113.5")
    // No header, or one that is not all addresses: the peer is the client.
    #expect(client("10.0.0.9", nil) == "10.0.0.9")
    for bad in ["", "203.0.113.5, garbage", "203.0.113.5,,10.0.0.2", "203.0.113.5:http", "unknown", "[::1"] {
      #expect(client("10.0.0.9", bad) == "10.0.0.9", "\(bad)")
    }
    // From a peer that is not trusted the header is anyone's claim: ignored.
    #expect(client("198.51.100.4", "203.0.113.5") == "198.51.100.4")
    #expect(TrustedProxies([]).client(peer: "127.0.0.1", forwardedFor: "203.0.113.5") == "127.0.0.1")
  }
}

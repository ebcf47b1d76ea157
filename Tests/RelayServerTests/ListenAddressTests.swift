import Foundation
import Testing
import TouchRelayClient

@testable import RelayServer

#if canImport(Glibc)
  import Glibc
#endif

/// `--host` means what it says: the default listens on loopback only, a non-local address or
/// an unknown name is a start-up error, and a busy port says so.
@Suite struct ListenAddressTests {
  @Test func anIPv4AddressGetsAnIPv4Listener() throws {
    let a = try ListenAddress.resolve("127.0.0.1")
    #expect(a == ListenAddress(iface: "127.0.0.1", ipv6: false, isLoopback: true))
    #expect(try ListenAddress.resolve("0.0.0.0") == ListenAddress(iface: "0.0.0.0", ipv6: false, isLoopback: false))
  }

  @Test func ipv6AddressesNamesAndInterfaces() throws {
    #expect(try ListenAddress.resolve("::1") == ListenAddress(iface: "::1", ipv6: true, isLoopback: true))
    #expect(try ListenAddress.resolve("[::1]") == ListenAddress(iface: "::1", ipv6: true, isLoopback: true))
    #expect(try ListenAddress.resolve("::") == ListenAddress(iface: "::", ipv6: true, isLoopback: false))
    #expect(try ListenAddress.resolve("::ffff:127.0.0.1").isLoopback)
    #expect(try ListenAddress.resolve("") == ListenAddress(iface: nil, ipv6: true, isLoopback: false))
    // A name: its first IPv4 address.
    #expect(try ListenAddress.resolve("localhost") == ListenAddress(iface: "127.0.0.1", ipv6: false, isLoopback: true))
    #expect(try ListenAddress.resolve("lo") == ListenAddress(iface: "lo", ipv6: true, isLoopback: true))
    #expect(throws: ListenAddress.Unresolvable.self) { try ListenAddress.resolve("no-such-host.invalid") }
  }

  /// The start-up line's URL: `ws://lo:8080` was no URL; an IPv6 address needs brackets.
  @Test func theURLNamesAHostAClientCanUse() throws {
    for (host, shown) in [
      ("127.0.0.1", "127.0.0.1"), ("localhost", "localhost"), ("::1", "[::1]"), ("[::1]", "[::1]"),
      ("lo", "127.0.0.1"), ("0.0.0.0", "0.0.0.0"), ("::", "[::]"), ("", "[::]"),
    ] {
      #expect(try ListenAddress.resolve(host).urlHost(given: host) == shown, "--host '\(host)'")
    }
  }

  /// Before, lws bound "127.0.0.1" as the wildcard: the default server answered on every
  /// address of the machine.
  @Test(Self.needsAnOutsideAddress)
  func theDefaultServerIsNotReachableFromOtherAddresses() async throws {
    #expect(RelayConfiguration().host == "127.0.0.1")
    let outside = try #require(Self.nonLoopbackIPv4())
    let relay = try TestRelay()
    defer { relay.stop() }
    #expect(try await HTTPClient.get("http://127.0.0.1:\(relay.port)/healthz").status == 200)
    await #expect(throws: (any Error).self, "answered on \(outside)") {
      _ = try await HTTPClient.get("http://\(outside):\(relay.port)/healthz", timeout: .seconds(2))
    }
  }

  @Test(Self.needsAnOutsideAddress)
  func aServerOnOneAddressAnswersThereOnly() async throws {
    let outside = try #require(Self.nonLoopbackIPv4())
    let relay = try TestRelay { $0.host = outside }
    defer { relay.stop() }
    #expect(try await HTTPClient.get("http://\(outside):\(relay.port)/healthz").status == 200)
    // A session only this server has, shown on its landing page. Another test's server may
    // listen on 127.0.0.1 with the same port number (ports are per address), so what answers
    // there, if anything, must not be this one.
    let session = "only-\(UInt32.random(in: 0...UInt32.max))"
    let ws = try await WebSocketConnection.connect("ws://\(outside):\(relay.port)/v1/observe/\(session)")
    defer { Task { await ws.close() } }
    _ = try await ws.nextJSON(type: "welcome")
    #expect(try await HTTPClient.get("http://\(outside):\(relay.port)/").text.contains(session))
    if let other = try? await HTTPClient.get("http://127.0.0.1:\(relay.port)/", timeout: .seconds(2)) {
      #expect(!other.text.contains(session), "this server answered on 127.0.0.1")
    }
    #expect(!relay.server.listensOnLoopbackOnly)
  }

  /// A busy port, an address not of this machine and an unknown name are start-up errors that
  /// say which. Through the binary: libwebsockets 4.1 leaks about 100 bytes for each context it
  /// fails to create, which LeakSanitizer would pin on this process (tools/sanitize).
  @Test func aBusyPortAnAddressNotOfThisMachineAndAnUnknownNameAreStartErrors() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let cases = [
      (["--port", "\(relay.port)"], "cannot listen on 127.0.0.1:\(relay.port): Address already in use"),
      // TEST-NET-3 (RFC 5737): never an address of this machine.
      (["--host", "203.0.113.77", "--port", "0"], "cannot listen on 203.0.113.77:0: Cannot assign requested address"),
      (["--host", "no-such-host.invalid", "--port", "0"], "cannot listen on host 'no-such-host.invalid': "),
    ]
    for (arguments, message) in cases {
      let (status, text) = try await ShutdownTests.runToExit(arguments)
      #expect(status == 1, "\(arguments): \(text)")
      #expect(text.contains(message), "\(arguments): \(text)")
    }
  }

  /// For tests that need an address of this machine other than loopback: on a machine without
  /// one they are skipped, and the runner reports them so (a skip it counts, not a pass).
  static let needsAnOutsideAddress = ConditionTrait.enabled(
    if: nonLoopbackIPv4() != nil, "this machine has no non-loopback IPv4 address")

  /// An IPv4 address of this machine other than loopback, if it has one.
  static func nonLoopbackIPv4() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return nil }
    defer { freeifaddrs(list) }
    var next = list
    while let ifa = next {
      next = ifa.pointee.ifa_next
      guard let sa = ifa.pointee.ifa_addr, sa.pointee.sa_family == sa_family_t(AF_INET) else { continue }
      let address = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
      var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
      var a = address
      guard inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) != nil else { continue }
      let s = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if !s.hasPrefix("127.") { return s }
    }
    return nil
  }
}

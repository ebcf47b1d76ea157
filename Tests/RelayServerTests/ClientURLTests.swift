import Testing
import TouchRelayClient

/// The test client's URLs: what touch-load's `--url` and the tests accept.
@Suite struct ClientURLTests {
  @Test func namesAddressesAndIPv6Literals() throws {
    let plain = try ClientURL("ws://127.0.0.1:8080/v1/observe/s?raw=1")
    #expect(plain == ClientURL(scheme: "ws", host: "127.0.0.1", port: 8080, target: "/v1/observe/s?raw=1"))
    #expect(plain.hostHeader == "127.0.0.1:8080")
    let v6 = try ClientURL("ws://[::1]:9000/v1/source/s")
    #expect(v6 == ClientURL(scheme: "ws", host: "::1", port: 9000, target: "/v1/source/s"))
    #expect(v6.hostHeader == "[::1]:9000")
    #expect(try ClientURL("http://[fd00::2]") == ClientURL(scheme: "http", host: "fd00::2", port: 80, target: "/"))
    #expect(
      try ClientURL("ws://localhost?x=1") == ClientURL(scheme: "ws", host: "localhost", port: 80, target: "/?x=1"))
  }

  @Test func tlsSchemesDefaultTo443() throws {
    let secure = try ClientURL("wss://relay.example/v1/source/s")
    #expect(secure == ClientURL(scheme: "wss", host: "relay.example", port: 443, target: "/v1/source/s"))
    #expect(secure.isTLS)
    #expect(try ClientURL("https://h").isTLS)
    #expect(try !ClientURL("ws://h").isTLS)
  }

  @Test func badURLsAreRefused() {
    for bad in ["127.0.0.1:8080", "ftp://h:1", "ws://:80", "ws://[::1", "ws://[::1]x", "ws://[::1]:99999", "ws://h:x"] {
      #expect(throws: WebSocketClientError.self, "\(bad)") { try ClientURL(bad) }
    }
  }
}

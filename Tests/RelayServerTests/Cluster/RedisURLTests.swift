import RelayServer
import Testing

/// `--redis redis://[:PASSWORD@]HOST[:PORT]` (README's option table, docs/deployment.md): what
/// is taken from it, and what is refused with a message saying why.
@Suite struct RedisURLTests {
  @Test(arguments: [
    ("redis://127.0.0.1", "127.0.0.1", 6379, nil),
    ("redis://127.0.0.1:6380", "127.0.0.1", 6380, nil),
    ("redis://redis.internal", "redis.internal", 6379, nil),
    ("redis://:SECRET@10.0.0.10:6379", "10.0.0.10", 6379, "SECRET"),
    // The password is everything between the ':' and the last '@'.
    ("redis://:p@ss:w0rd@10.0.0.10", "10.0.0.10", 6379, "p@ss:w0rd"),
    ("redis://:a/b@10.0.0.10:6380/0", "10.0.0.10", 6380, "a/b"),
    ("redis://[::1]", "::1", 6379, nil),
    ("redis://[::1]:7000", "::1", 7000, nil),
    ("redis://:pw@[fd00::10]:6390", "fd00::10", 6390, "pw"),
    // Database 0 is what pub/sub uses anyway.
    ("redis://127.0.0.1:6379/", "127.0.0.1", 6379, nil),
    ("redis://127.0.0.1:6379/0", "127.0.0.1", 6379, nil),
  ] as [(String, String, Int, String?)])
  func takesHostPortAndPassword(text: String, host: String, port: Int, password: String?) throws {
    let url = try RedisURL(text)
    #expect(url.host == host)
    #expect(url.port == port)
    #expect(url.password == password)
  }

  @Test(arguments: [
    ("http://127.0.0.1:6379", "does not start with redis://"),
    ("redis://127.0.0.1:6379/1", "a database number does not separate pub/sub: use --redis-prefix"),
    ("redis://:pw@127.0.0.1/2", "a database number does not separate pub/sub: use --redis-prefix"),
    ("redis://user:pw@127.0.0.1", "credentials must be ':PASSWORD@' (Redis ACL users are not supported)"),
    ("redis://:@127.0.0.1", "credentials must be ':PASSWORD@'"),
    ("redis://", "no host"),
    ("redis://:6379", "no host"),
    ("redis://127.0.0.1:0", "bad port '0'"),
    ("redis://127.0.0.1:65536", "bad port '65536'"),
    ("redis://127.0.0.1:redis", "bad port 'redis'"),
    ("redis://[::1", "unclosed ["),
    ("redis://[::1]6379", "unexpected '6379' after the host"),
    // Without brackets an IPv6 address cannot be told from its port.
    ("redis://::1", "an IPv6 address goes in brackets: redis://[::1]:6379"),
    ("redis://fd00::10:6379", "an IPv6 address goes in brackets: redis://[::1]:6379"),
  ])
  func refusesSayingWhy(text: String, message: String) {
    #expect {
      try RedisURL(text)
    } throws: { error in
      "\(error)".contains(message)
    }
  }

  /// The configuration refuses it before the server starts, with the same reason.
  @Test func theConfigurationSaysWhy() {
    var config = RelayConfiguration()
    config.redisURL = "redis://127.0.0.1:6379/3"
    #expect {
      try config.validate()
    } throws: { error in
      "\(error)".contains("redis: a database number does not separate pub/sub")
    }
  }
}

import Crypto
import Foundation
import SignedTokens
import Testing
import TouchRelayClient

/// Signed tokens through the real server, minted by these tests (HS256 with swift-crypto) and by
/// an independent implementation, PyJWT (`tools/jwt-mint.py`, Debian's python3-jwt), with keys
/// made by openssl for each test. Refusals are plain HTTP before the upgrade.
@Suite struct SignedTokenTests {
  static let python = "/usr/bin/python3"
  static let mint = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../tools/jwt-mint.py").standardized.path

  /// Key files made for one test: an HS256 secret, EC and RSA key pairs, and an EC pair the
  /// server never hears of.
  struct Keys {
    let dir: URL
    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    var secret: String { path("secret.txt") }
    var secretBytes: [UInt8] {
      var b = Array(FileManager.default.contents(atPath: secret) ?? Data())
      if b.last == 0x0A { b.removeLast() }
      return b
    }

    init() async throws {
      for tool in ["/usr/bin/openssl", SignedTokenTests.python] {
        try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is needed (see .ci/run)")
      }
      let (ok, log) = try await runTool(SignedTokenTests.python, ["-c", "import jwt, cryptography"])
      try #require(ok == 0, "PyJWT is needed (Debian: python3-jwt, python3-cryptography): \(log)")
      dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
      let secret = (0..<48).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! }
      try Data((String(secret) + "\n").utf8).write(to: dir.appendingPathComponent("secret.txt"))
      for (name, args) in [
        ("ec", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path("ec.pem")]),
        ("other", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path("other.pem")]),
        ("rsa", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path("rsa.pem")]),
      ] {
        let (made, log) = try await runTool("/usr/bin/openssl", args)
        try #require(made == 0, "openssl: \(log)")
        let (pub, log2) = try await runTool(
          "/usr/bin/openssl", ["pkey", "-in", path("\(name).pem"), "-pubout", "-out", path("\(name).pub.pem")])
        try #require(pub == 0, "openssl: \(log2)")
      }
    }

    func remove() { try? FileManager.default.removeItem(at: dir) }
  }

  /// Runs `tools/jwt-mint.py` and returns what it printed.
  static func pyjwt(_ args: [String]) async throws -> String {
    let (status, out) = try await runTool(python, [mint] + args)
    try #require(status == 0, "jwt-mint.py \(args.joined(separator: " ")): \(out)")
    return out.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  static func pyjwt(_ alg: String, key: String, kid: String? = nil, _ claims: String) async throws -> String {
    try await pyjwt(["token", "--alg", alg, "--key", key, "--claims", claims] + (kid.map { ["--kid", $0] } ?? []))
  }

  /// HS256 minted here with swift-crypto, not by the server's code.
  static func hs256(_ secret: [UInt8], _ claims: String, header: String = #"{"alg":"HS256","typ":"JWT"}"#) -> String {
    let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: secret))
    return input + "." + Base64URL.encode(Array(mac))
  }

  static var now: Double { Date().timeIntervalSince1970 }

  static func claims(
    role: String, session: String, expiresIn: Double = 600, nbfIn: Double? = nil, aud: String? = nil
  ) -> String {
    var members = [#""exp":\#(Int(now + expiresIn))"#, #""role":"\#(role)""#, #""session":\#(session)"#]
    if let nbfIn { members.append(#""nbf":\#(Int(now + nbfIn))"#) }
    if let aud { members.append(#""aud":"\#(aud)""#) }
    return "{" + members.joined(separator: ",") + "}"
  }

  /// The upgrade's status and body, with the token as `?token=` or a Bearer header.
  func status(_ relay: TestRelay, _ path: String, token: String?, bearer: Bool = false) async -> (Int?, String) {
    guard let token else { return await relay.upgradeStatus(relay.url(path)) }
    if bearer { return await relay.upgradeStatus(relay.url(path), headers: [("Authorization", "Bearer \(token)")]) }
    return await relay.upgradeStatus(relay.url(path) + "?token=\(token)")
  }

  @Test func validTokensAreAcceptedPerRoleAndSession() async throws {
    let keys = try await Keys()
    defer { keys.remove() }
    let relay = try TestRelay {
      $0.jwtKeyFiles = [keys.secret, keys.path("ec.pub.pem"), keys.path("rsa.pub.pem")]
      $0.sourceToken = "phone-secret"
    }
    defer { relay.stop() }
    // ES256 by PyJWT: a source of one session by name.
    let es = try await Self.pyjwt("ES256", key: keys.path("ec.pem"), Self.claims(role: "source", session: #""stage""#))
    #expect(await status(relay, "/v1/source/stage", token: es).0 == 101)
    #expect(await status(relay, "/v1/observe/stage", token: es).0 == 403)
    #expect(await status(relay, "/v1/source/stage-2", token: es).0 == 403)
    // RS256 by PyJWT: an observer of a list of sessions, as a Bearer header.
    let rs = try await Self.pyjwt(
      "RS256", key: keys.path("rsa.pem"), Self.claims(role: "observer", session: #"["a","stage"]"#))
    #expect(await status(relay, "/v1/observe/stage", token: rs, bearer: true).0 == 101)
    #expect(await status(relay, "/v1/observe/a", token: rs, bearer: true).0 == 101)
    #expect(await status(relay, "/v1/observe/b", token: rs, bearer: true).0 == 403)
    #expect(await status(relay, "/v1/source/a", token: rs, bearer: true).0 == 403)
    // HS256 by PyJWT and by the tests: both roles of a prefix pattern.
    let claims = Self.claims(role: "both", session: #""stage-*""#)
    for hs in [try await Self.pyjwt("HS256", key: keys.secret, claims), Self.hs256(keys.secretBytes, claims)] {
      #expect(await status(relay, "/v1/source/stage-1", token: hs).0 == 101)
      #expect(await status(relay, "/v1/observe/stage-2", token: hs).0 == 101)
      #expect(await status(relay, "/v1/observe/backstage", token: hs).0 == 403)
    }
    // The shared token still works beside them; no token at all is 401.
    #expect(await status(relay, "/v1/source/anything", token: "phone-secret").0 == 101)
    #expect(await status(relay, "/v1/observe/stage", token: nil).0 == 401)
    // A source with a signed token streams like any other.
    let (src, _) = try await relay.source("stage", token: es)
    await src.close()
  }

  @Test func refusedTokensAllGetTheSame403() async throws {
    let keys = try await Keys()
    defer { keys.remove() }
    let relay = try TestRelay {
      $0.jwtKeyFiles = [keys.secret, keys.path("ec.pub.pem"), keys.path("rsa.pub.pem")]
      $0.jwtAudience = "touch-relay"
      $0.jwtLeeway = 30
    }
    defer { relay.stop() }
    let good = Self.claims(role: "both", session: #""stage""#, aud: "touch-relay")
    let valid = try await Self.pyjwt("ES256", key: keys.path("ec.pem"), good)
    #expect(await status(relay, "/v1/observe/stage", token: valid).0 == 101)
    let (src, _) = try await relay.source("stage", token: valid)
    defer { Task { await src.close() } }

    let pieces = valid.split(separator: ".").map(String.init)
    let forgedPayload = Base64URL.encode(Array(Self.claims(role: "both", session: #""*""#, aud: "touch-relay").utf8))
    var refused: [(String, String)] = [
      (
        "expired",
        try await Self.pyjwt(
          "ES256", key: keys.path("ec.pem"),
          Self.claims(role: "both", session: #""stage""#, expiresIn: -60, aud: "touch-relay"))
      ),
      (
        "not yet valid",
        try await Self.pyjwt(
          "ES256", key: keys.path("ec.pem"),
          Self.claims(role: "both", session: #""stage""#, nbfIn: 300, aud: "touch-relay"))
      ),
      (
        "wrong audience",
        try await Self.pyjwt(
          "RS256", key: keys.path("rsa.pem"), Self.claims(role: "both", session: #""stage""#, aud: "someone-else"))
      ),
      (
        "no audience",
        try await Self.pyjwt("RS256", key: keys.path("rsa.pem"), Self.claims(role: "both", session: #""stage""#))
      ),
      ("wrong key", try await Self.pyjwt("ES256", key: keys.path("other.pem"), good)),
      ("wrong secret", Self.hs256(Array("some-other-secret-that-is-long-enough".utf8), good)),
      ("tampered payload", "\(pieces[0]).\(forgedPayload).\(pieces[2])"),
      ("alg none", try await Self.pyjwt(["none", "--claims", good])),
      (
        "HS256 with the EC public key",
        try await Self.pyjwt(["hs256-with-file", "--file", keys.path("ec.pub.pem"), "--claims", good])
      ),
      (
        "HS256 with the RSA public key",
        try await Self.pyjwt(["hs256-with-file", "--file", keys.path("rsa.pub.pem"), "--claims", good])
      ),
      ("unknown kid", try await Self.pyjwt("ES256", key: keys.path("ec.pem"), kid: "nobody", good)),
      ("malformed", "not-a-jwt"),
    ]
    // The same refused tokens whether the session exists or not.
    refused += refused.map { ("\($0.0), no such session", $0.1) }
    var bodies: Set<String> = []
    for (index, (why, token)) in refused.enumerated() {
      let session = index < refused.count / 2 ? "stage" : "nowhere"
      let (code, body) = await status(relay, "/v1/observe/\(session)", token: token)
      #expect(code == 403, "\(why): \(code.map(String.init) ?? body)")
      bodies.insert(body)
    }
    #expect(bodies == ["token not accepted\n"])
    #expect(await status(relay, "/v1/observe/stage", token: nil).0 == 401)
    #expect(
      await status(relay, "/v1/observe/nowhere", token: nil).1
        == (await status(relay, "/v1/observe/stage", token: nil).1))
  }

  /// The operator's way: a `touch-relay` process, its JWKS changed, then SIGHUP.
  @Test func keysRotateThroughAJWKSReloadedOnSIGHUP() async throws {
    let keys = try await Keys()
    defer { keys.remove() }
    let jwks = keys.path("keys.json")
    try await Self.pyjwt([
      "jwks", "--kid", "old", "--public", keys.path("ec.pub.pem"), "--kid", "new", "--public", keys.path("rsa.pub.pem"),
    ])
    .write(toFile: jwks, atomically: true, encoding: .utf8)
    let relay = try await RelayProcess(["--jwt-key", jwks, "--jwt-key", keys.secret])
    defer { relay.stop() }
    func status(_ token: String) async -> Int? {
      await upgradeStatus(relay.url("/v1/observe/stage?token=\(token)")).0
    }
    let claims = Self.claims(role: "observer", session: #""stage""#)
    let old = try await Self.pyjwt("ES256", key: keys.path("ec.pem"), kid: "old", claims)
    let new = try await Self.pyjwt("RS256", key: keys.path("rsa.pem"), kid: "new", claims)
    let hs = try await Self.pyjwt("HS256", key: keys.secret, claims)
    // The kid chooses the key: the EC token under the RSA key's kid is refused.
    let swapped = try await Self.pyjwt("ES256", key: keys.path("ec.pem"), kid: "new", claims)
    #expect(await status(old) == 101)
    #expect(await status(new) == 101)
    #expect(await status(hs) == 101)
    #expect(await status(swapped) == 403)

    try await Self.pyjwt(["jwks", "--kid", "new", "--public", keys.path("rsa.pub.pem")])
      .write(toFile: jwks, atomically: true, encoding: .utf8)
    #expect(try await relay.signal(SIGHUP, answeredBy: "JWT keys reloaded"), "\(relay.logged)")
    #expect(await status(old) == 403)
    #expect(await status(new) == 101)
    #expect(await status(hs) == 101)

    // A broken file on reload keeps the keys in force.
    try "{\"keys\": [".write(toFile: jwks, atomically: true, encoding: .utf8)
    #expect(try await relay.signal(SIGHUP, answeredBy: "JWT keys not reloaded"), "\(relay.logged)")
    #expect(await status(new) == 101)
    #expect(await status(old) == 403)
    #expect(relay.process.isRunning)
  }

  @Test func aConnectionIsClosedWith1008WhenItsTokenExpires() async throws {
    let keys = try await Keys()
    defer { keys.remove() }
    let relay = try TestRelay {
      $0.jwtKeyFiles = [keys.secret]
      $0.jwtLeeway = 0
      $0.observerToken = "screen"
    }
    defer { relay.stop() }
    // exp as a NumericDate with a fraction, 5 s ahead: far enough that a busy machine still
    // connects before it (at 2 s a full-suite run beside a sanitizer build did not).
    let exp = Self.now + 5
    let token = Self.hs256(keys.secretBytes, #"{"exp":\#(exp),"role":"both","session":"stage"}"#)
    let (watcher, _) = try await relay.observer("stage", query: "token=\(token)")
    let (shared, _) = try await relay.observer("stage", query: "token=screen")
    let (code, reason) = try await watcher.expectClose(timeout: TestTime.seconds(12))
    // Timed against the token's own exp, so a slow connect on a busy machine counts for nothing.
    let closedAt = Self.now
    #expect(code == 1008)
    #expect(reason == "token expired")
    #expect(closedAt > exp - 0.1, "closed \(exp - closedAt) s before exp")
    // Not at a leeway's end (30 s by default) nor never: within expectClose's 12 s. When
    // exactly, the expiry plus the leeway to the millisecond, is the core's rule on virtual
    // time (TokenExpiryTimingTests); read on a loaded machine's wall clock it was a flake.
    // The shared token's connection stays.
    try await shared.send(text: #"{"type":"control","action":"reset"}"#)
    #expect(try await shared.nextJSON(type: "error")["code"]?.stringValue != nil)
    await shared.close()
  }

  @Test func aKeyFileThatIsNotAKeyIsAStartUpError() async throws {
    let keys = try await Keys()
    defer { keys.remove() }
    // A private key, a short secret, a broken JWKS.
    try "short\n".write(toFile: keys.path("short.txt"), atomically: true, encoding: .utf8)
    try "{\"keys\":[{\"kty\":\"EC\"}]}".write(toFile: keys.path("bad.json"), atomically: true, encoding: .utf8)
    for file in ["ec.pem", "short.txt", "bad.json", "missing"] {
      #expect(throws: (any Error).self, "\(file)") { try TestRelay { $0.jwtKeyFiles = [keys.path(file)] } }
    }
  }
}

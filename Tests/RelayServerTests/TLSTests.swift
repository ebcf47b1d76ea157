import Foundation
import Testing

/// TLS with a self-signed certificate made here, checked with independent clients: curl for
/// https:// and Python's websockets for wss:// (Debian's curl, openssl, python3-websockets).
@Suite struct TLSTests {
  /// A self-signed certificate for 127.0.0.1 and localhost, with its key, in a new directory
  /// (the caller removes it).
  static func makeCertificate() async throws -> (dir: URL, cert: String, key: String) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let cert = dir.appendingPathComponent("cert.pem").path
    let key = dir.appendingPathComponent("key.pem").path
    let (made, log) = try await runTool(
      "/usr/bin/openssl",
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
        "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
      ])
    try #require(made == 0, "openssl: \(log)")
    return (dir, cert, key)
  }

  /// With lws' own listener, and with `--reuse-port`'s, whose connections lws adopts with TLS.
  @Test(arguments: [false, true]) func wssAndHttpsWorkWithTheGivenCertificate(reusePort: Bool) async throws {
    for tool in ["/usr/bin/openssl", "/usr/bin/curl", "/usr/bin/python3"] {
      try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is needed (see .ci/run)")
    }
    let (dir, cert, key) = try await Self.makeCertificate()
    defer { try? FileManager.default.removeItem(at: dir) }

    let relay = try TestRelay {
      $0.tlsCertificate = cert
      $0.tlsKey = key
      $0.reusePort = reusePort
    }
    defer { relay.stop() }
    let (curlStatus, body) = try await runTool(
      "/usr/bin/curl", ["-sS", "--max-time", "5", "--cacert", cert, "https://127.0.0.1:\(relay.port)/healthz"])
    #expect(curlStatus == 0, "\(body)")
    #expect(body.contains(#""status":"ok""#))

    let script = """
      import asyncio, json, ssl, sys, websockets
      async def main():
          ctx = ssl.create_default_context(cafile=sys.argv[1])
          async with websockets.connect(f"wss://127.0.0.1:{sys.argv[2]}/v1/observe/tls", ssl=ctx) as ws:
              print(json.loads(await ws.recv())["type"])
      asyncio.run(asyncio.wait_for(main(), 10))
      """
    let (pyStatus, out) = try await runTool("/usr/bin/python3", ["-c", script, cert, String(relay.port)])
    #expect(pyStatus == 0, "\(out)")
    #expect(out.contains("welcome"))

    // Plain HTTP to the TLS port gets no answer it could mistake for one.
    let (plainStatus, plain) = try await runTool(
      "/usr/bin/curl", ["-sS", "--max-time", "3", "http://127.0.0.1:\(relay.port)/healthz"])
    #expect(plainStatus != 0 || !plain.contains(#""status":"ok""#))
  }

  @Test func aCertificateWithoutAKeyIsAStartUpError() throws {
    #expect(throws: (any Error).self) { try TestRelay { $0.tlsCertificate = "/nonexistent.pem" } }
  }
}

import Foundation
import Testing
import TouchRelayClient

/// The real `touch-relay` binary, as an operator runs it.
@Suite struct ShutdownTests {
  /// The built executable next to the test bundle.
  static var binary: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("touch-relay")
  }

  /// Starts `touch-relay --port 0 ...` and reads the port from its one start-up line.
  static func launch(_ args: [String] = [], errors: Pipe? = nil) async throws -> (Process, Int, Pipe) {
    let (p, line, out) = try await launchForLine(args, errors: errors)
    let port = url(in: line).split(separator: ":").last.flatMap { Int($0) }
    return (p, try #require(port, "no port in start-up line '\(line)'"), out)
  }

  /// The URL of the start-up line, "touch-relay VERSION listening on URL (healthz: ...)".
  static func url(in line: String) -> String {
    line.components(separatedBy: " listening on ").dropFirst().first?.split(separator: " ").first.map(String.init) ?? ""
  }

  /// Starts `touch-relay --port 0 ...` and returns its start-up lines (written at once). The
  /// wait for them is on a thread of its own, not the pool's (`onOwnThread`).
  static func launchForLine(_ args: [String] = [], errors: Pipe? = nil) async throws -> (Process, String, Pipe) {
    try await onOwnThread { try startForLine(["--port", "0", "--log-level", "error"] + args, stderr: errors) }
  }

  /// Starts the binary with `arguments` (its stderr to `stderr` when given) and reads its
  /// stdout to the end of the first line, or to its end should it exit first; returns the
  /// process, what it read, and the stdout pipe. Blocks: callers run it on `onOwnThread`.
  /// `wrapper`: a command it runs under (`prlimit --nofile=...`), the binary its last argument.
  static func startForLine(_ arguments: [String], stderr: Any? = nil, under wrapper: [String] = []) throws -> (
    Process, String, Pipe
  ) {
    let p = Process()
    p.executableURL = wrapper.first.map { URL(fileURLWithPath: $0) } ?? binary
    p.arguments = wrapper.isEmpty ? arguments : wrapper.dropFirst() + [binary.path] + arguments
    let out = ChildProcess.pipe()
    p.standardOutput = out
    if let stderr { p.standardError = stderr }
    try ChildProcess.run(p)
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = out.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    return (p, String(decoding: line, as: UTF8.self), out)
  }

  /// Waits up to 10 s for `p` to exit; true if it did. Once it has, `waitUntilExit` returns at
  /// once and lets Foundation let go of the process (polling `isRunning` alone leaves it held).
  static func exited(_ p: Process) async throws -> Bool {
    guard try await eventually("touch-relay (pid \(p.processIdentifier)) exits", { !p.isRunning }) else { return false }
    p.waitUntilExit()
    return true
  }

  /// The start-up line's URL is one a client can connect to, whatever `--host` was given.
  @Test(arguments: [[], ["--host", "lo"], ["--host", "::1"], ["--host", "[::1]"], ["--host", "localhost"]])
  func startUpLineSaysWhereItListens(arguments: [String]) async throws {
    #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build touch-relay first")
    let (p, line, _) = try await Self.launchForLine(arguments)
    defer {
      terminate(p)
    }
    let url = Self.url(in: line)
    #expect(url.hasPrefix("ws://"), "\(line)")
    #expect(line.contains("(healthz: http" + url.dropFirst(2) + "/healthz)"), "\(line)")
    let observer = try await WebSocketConnection.connect("\(url)/v1/observe/startup")
    #expect(try await observer.nextJSON(type: "welcome")["role"]?.stringValue == "observer", "\(line)")
    await observer.close()
  }

  /// On every IPv4 interface the line names no address a phone can use; the lines after it
  /// list this machine's own, and the pages answer there.
  @Test(ListenAddressTests.needsAnOutsideAddress)
  func onEveryInterfaceItListsTheAddressesOtherDevicesUse() async throws {
    let (p, lines, _) = try await Self.launchForLine(["--host", "0.0.0.0"])
    defer {
      terminate(p)
    }
    let port = try #require(Self.url(in: lines).split(separator: ":").last.flatMap { Int($0) }, "\(lines)")
    let listed = lines.split(separator: "\n").filter { $0.contains("open on other devices: ") }
    #expect(!listed.contains { $0.contains("127.0.0.1") || $0.contains("[") }, "\(lines)")  // no loopback, no IPv6
    let outside = try #require(ListenAddressTests.nonLoopbackIPv4())
    let page = "http://\(outside):\(port)/"
    #expect(listed.contains { $0.contains(page) }, "\(lines)")
    #expect(try await HTTPClient.get(page + "healthz").status == 200)
  }

  /// On loopback there are no other devices to list addresses for.
  @Test func onLoopbackItListsNoAddressesForOtherDevices() async throws {
    let (q, loopbackLines, _) = try await Self.launchForLine([])
    defer {
      terminate(q)
    }
    #expect(Self.url(in: loopbackLines).hasPrefix("ws://127.0.0.1:"), "\(loopbackLines)")
    #expect(!loopbackLines.contains("open on other devices"), "\(loopbackLines)")
  }

  /// With TLS the line says wss:// and https://.
  @Test func startUpLineSaysWssWithTLS() async throws {
    let (dir, cert, key) = try await TLSTests.makeCertificate()
    defer { try? FileManager.default.removeItem(at: dir) }
    let (p, line, _) = try await Self.launchForLine(["--cert", cert, "--key", key])
    defer {
      terminate(p)
    }
    let port = try #require(Self.url(in: line).split(separator: ":").last.flatMap { Int($0) }, "\(line)")
    #expect(
      line.contains("listening on wss://127.0.0.1:\(port) (healthz: https://127.0.0.1:\(port)/healthz)"), "\(line)")
  }

  @Test func sigtermClosesEveryConnectionWith1001AndExitsZero() async throws {
    let (p, port, _) = try await Self.launch()
    let base = "ws://127.0.0.1:\(port)"
    let observer = try await WebSocketConnection.connect(base + "/v1/observe/bye")
    _ = try await observer.nextJSON(type: "welcome")
    let source = try await WebSocketConnection.connect(base + "/v1/source/bye")
    try await source.send(text: #"{"type":"hello","device":{"name":"x","width":10,"height":10}}"#)
    _ = try await source.nextJSON(type: "welcome")

    kill(p.processIdentifier, SIGTERM)
    #expect(try await observer.expectClose(timeout: .seconds(10)).code == 1001)
    #expect(try await source.expectClose(timeout: .seconds(10)).code == 1001)
    #expect(try await Self.exited(p))
    if !p.isRunning {
      #expect(p.terminationReason == .exit)
      #expect(p.terminationStatus == 0)
    } else {
      p.interrupt()
    }
  }

  @Test(arguments: ["libev", "poll"])
  func sigtermOnEitherEventLoopDrainsAndExitsZero(loop: String) async throws {
    let (p, port, _) = try await Self.launch(["--event-loop", loop])
    let observer = try await WebSocketConnection.connect("ws://127.0.0.1:\(port)/v1/observe/loop")
    _ = try await observer.nextJSON(type: "welcome")
    kill(p.processIdentifier, SIGTERM)
    #expect(try await observer.expectClose(timeout: .seconds(10)).code == 1001)
    #expect(try await Self.exited(p) && p.terminationStatus == 0)
  }

  @Test func sigintWithNoConnectionsExitsZero() async throws {
    let (p, _, _) = try await Self.launch()
    kill(p.processIdentifier, SIGINT)
    #expect(try await Self.exited(p) && p.terminationStatus == 0)
  }

  /// Runs the binary to completion (it is expected to refuse to start); its status and what
  /// it printed.
  static func runToExit(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
    try await runTool(binary.path, arguments, environment: environment)
  }

  @Test func refusesABadFlagWithAClearMessage() async throws {
    let (status, text) = try await Self.runToExit(["--port", "70000"])
    #expect(status != 0)
    #expect(text.contains("port must be from 0 to 65535"), "\(text)")
  }

  /// The write batch size and the deflate memory level: out of range by flag, not a number
  /// by environment.
  @Test(arguments: [
    (["--write-batch-bytes=-1"], [String: String](), "write batch bytes must be from 0 to 16777216"),
    ([], ["TOUCH_RELAY_WRITE_BATCH_BYTES": "lots"], "TOUCH_RELAY_WRITE_BATCH_BYTES='lots' is not a valid value"),
    (["--deflate-mem-level", "0"], [:], "deflate mem level must be from 1 to 9"),
    ([], ["TOUCH_RELAY_DEFLATE_MEM_LEVEL": "10"], "deflate mem level must be from 1 to 9"),
    ([], ["TOUCH_RELAY_DEFLATE_MEM_LEVEL": "low"], "TOUCH_RELAY_DEFLATE_MEM_LEVEL='low' is not a valid value"),
  ])
  func refusesABadWriteSetting(arguments: [String], environment: [String: String], message: String) async throws {
    let (status, text) = try await Self.runToExit(arguments, environment: environment)
    #expect(status != 0)
    #expect(text.contains(message), "\(text)")
  }

  /// The warning about an open door comes once the server listens, and only when it is one:
  /// not for a loopback name, not with tokens, not for an address it could not listen on.
  @Test func warnsOfANonLoopbackAddressWithoutTokensOnly() async throws {
    func warned(_ args: [String]) async throws -> Bool {
      let errors = ChildProcess.pipe()
      let (p, _, _) = try await Self.launch(args + ["--log-level", "warning"], errors: errors)
      terminate(p)
      let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      return text.contains("without tokens")
    }
    #expect(try await warned(["--host", "0.0.0.0"]))
    #expect(try await !warned(["--host", "localhost"]))
    #expect(try await !warned(["--host", "[::1]"]))
    #expect(try await !warned(["--host", "0.0.0.0", "--source-token", "s"]))
    let (status, text) = try await Self.runToExit(["--host", "203.0.113.77", "--port", "0"])
    #expect(status == 1, "\(text)")
    #expect(text.contains("cannot listen on 203.0.113.77:0: Cannot assign requested address"), "\(text)")
    #expect(!text.contains("without tokens"), "\(text)")
  }
}

import Foundation
import Testing
import TouchRelayClient

@testable import RelayServer

#if canImport(Glibc)
  import Glibc
#endif

/// The descriptor limit as an operator meets it: the server raises its soft limit to the hard
/// one, says in its start-up line how many connections that allows, and answers 503 beyond,
/// never spinning. The children run under `prlimit`, which sets their limits as a shell's
/// `ulimit -n` or systemd's `LimitNOFILE` would.
@Suite struct DescriptorLimitTests {
  @Test func theConnectionsAllowedAreTheLimitLessWhatIsOpenAndAReserve() {
    #expect(DescriptorBudget.reserve(limit: 20_000) == 64)
    #expect(DescriptorBudget.reserve(limit: 400) == 50)
    #expect(DescriptorBudget.reserve(limit: 64) == 16)
    #expect(DescriptorBudget.connections(limit: 20_000, open: 12, recording: false) == 19_924)
    // A recorded source holds its file too.
    #expect(DescriptorBudget.connections(limit: 20_000, open: 12, recording: true) == 9_962)
    #expect(DescriptorBudget.connections(limit: 20, open: 12, recording: false) == 1)
    // Half the reserve is kept from connections that never upgrade.
    #expect(DescriptorBudget(limit: 400, previousLimit: 128, connections: 300).ceiling == 375)
  }

  /// `touch-relay --port 0 ARGUMENTS` with descriptor limits `soft` and `hard`.
  static func launch(soft: Int, hard: Int, _ arguments: [String] = []) async throws -> (Process, String) {
    let (p, line, _) = try await onOwnThread {
      try ShutdownTests.startForLine(
        ["--port", "0", "--log-level", "error"] + arguments, stderr: FileHandle.nullDevice,
        under: ["/usr/bin/prlimit", "--nofile=\(soft):\(hard)", "--"])
    }
    return (p, line)
  }

  /// The number in the start-up line's "up to N connections".
  static func allowed(in line: String) -> Int? {
    line.components(separatedBy: "up to ").dropFirst().first?.split(separator: " ").first.flatMap { Int($0) }
  }

  /// Its CPU seconds so far (user and system), from `/proc/PID/stat`.
  static func cpuSeconds(_ p: Process) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(p.processIdentifier)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return 0 }
    // After the name: state is field 3; utime and stime are fields 14 and 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  @Test func theSoftLimitIsRaisedToTheHardOneAndTheStartUpLineSaysWhatThatAllows() async throws {
    let (p, line) = try await Self.launch(soft: 128, hard: 400)
    defer { terminate(p) }
    let allowed = try #require(Self.allowed(in: line), "no 'up to N connections' in '\(line)'")
    // More than the soft limit it was started with: it was raised, less the reserve of 50.
    #expect(allowed > 128 && allowed <= 350, "\(line)")
    #expect(line.hasSuffix(", up to \(allowed) connections, node \(line.split(separator: " ").last ?? "")"), "\(line)")
    let port = try #require(ShutdownTests.url(in: line).split(separator: ":").last.flatMap { Int($0) })
    let metrics = try await HTTPClient.get("http://127.0.0.1:\(port)/metrics").text
    #expect(metricValue(metrics, "process_max_fds") == 400, "\(metrics.prefix(2000))")
    // The limit in force is the welcome's, as every limit is.
    let ws = try await WebSocketConnection.connect("ws://127.0.0.1:\(port)/v1/observe/x")
    let welcome = try await ws.nextJSON(type: "welcome")
    #expect(welcome["limits"]?["maxConnections"]?.intValue == allowed, "\(welcome)")
    await ws.close()
  }

  @Test func beyondWhatTheDescriptorsAllowAnUpgradeIs503AndTheSessionGoesOn() async throws {
    let (p, line) = try await Self.launch(soft: 96, hard: 96)
    defer { terminate(p) }
    let allowed = try #require(Self.allowed(in: line), "\(line)")
    #expect(allowed > 20 && allowed < 96, "\(line)")
    let port = try #require(ShutdownTests.url(in: line).split(separator: ":").last.flatMap { Int($0) })
    let source = try await WebSocketConnection.connect("ws://127.0.0.1:\(port)/v1/source/full")
    try await source.send(text: #"{"type":"hello","device":{"name":"phone","width":400,"height":800}}"#)
    _ = try await source.nextJSON(type: "welcome")
    var observers: [WebSocketConnection] = []
    for _ in 1..<allowed {
      let ws = try await WebSocketConnection.connect("ws://127.0.0.1:\(port)/v1/observe/full?raw=1")
      _ = try await ws.nextJSON(type: "welcome")
      observers.append(ws)
    }
    let (status, body) = await upgradeStatus("ws://127.0.0.1:\(port)/v1/observe/full?raw=1")
    #expect(status == 503, "\(body)")
    #expect(body.contains("too many connections (\(allowed))"), "\(body)")
    // Refusing costs nothing while it waits: no loop spinning on a socket.
    let before = Self.cpuSeconds(p)
    try await Task.sleep(for: .seconds(1))
    #expect(Self.cpuSeconds(p) - before < 0.3)
    // And everyone already in goes on.
    try await source.send(text: frameText(1, t: 0, [(1, "began", 10, 20)]))
    for ws in [observers.first!, observers.last!] {
      let touches = try await ws.nextJSON(type: "touches")
      #expect(touches["seq"]?.intValue == 1, "\(touches)")
    }
    for ws in observers { await ws.close() }
    await source.close()
  }

  /// A crowd of connections that never say a word: once they hold nearly every descriptor,
  /// each further one is answered 503 and closed, by lws' listener and by `--reuse-port`'s
  /// own. Neither spins, and both serve again once descriptors are free.
  @Test(arguments: [false, true])
  func outOfDescriptorsNeitherListenerSpinsAndBothRecover(reusePort: Bool) async throws {
    let (p, line) = try await Self.launch(soft: 64, hard: 64, reusePort ? ["--reuse-port"] : [])
    defer { terminate(p) }
    let port = try #require(ShutdownTests.url(in: line).split(separator: ":").last.flatMap { Int($0) }, "\(line)")
    var silent: [Int32] = []
    defer { for fd in silent { close(fd) } }
    for _ in 0..<90 {
      let fd = loopbackSocket(port: port)
      #expect(fd != nil, "connect: \(String(cString: strerror(errno)))")
      if let fd { silent.append(fd) }
    }
    try await Task.sleep(for: .milliseconds(500))
    let before = Self.cpuSeconds(p)
    try await Task.sleep(for: .seconds(1))
    #expect(Self.cpuSeconds(p) - before < 0.3, "it spins while out of descriptors")
    do {
      var answers = 0
      for fd in silent {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if n > 0 {
          let text = String(decoding: buffer[..<n], as: UTF8.self)
          #expect(text.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(text)")
          #expect(text.hasSuffix("\r\n\r\nout of descriptors\n"), "\(text)")
          answers += 1
        }
      }
      #expect(answers > 0, "no connection was answered 503")
    }
    for fd in silent { close(fd) }
    silent = []
    let served = try await eventually("it serves again once descriptors are free") {
      await upgradeStatus("ws://127.0.0.1:\(port)/v1/observe/again").0 == 101
    }
    #expect(served)
  }
}

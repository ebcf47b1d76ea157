import Foundation
import NIOConcurrencyHelpers
import NIOSSL
import Testing
import TouchProtocol
import TouchRelayClient
import TouchRelayKit

/// TouchRelayKit's source and observer against the real server on loopback, with a proxy in
/// between where the network must misbehave.
@Suite struct ClientLibraryTests {
  static let device = Device(name: "Library phone", width: 400, height: 800)

  static func touch(_ id: Int64, _ phase: TouchPhase, _ x: Double) -> TouchPoint {
    TouchPoint(id: id, phase: phase, x: x, y: 100)
  }

  /// Reads the observer until `until` says stop, collecting everything; fails after `timeout`.
  static func collect(
    _ observer: RelayObserver, timeout: Duration = TestTime.seconds(10),
    until: @escaping @Sendable ([ObserverMessage]) -> Bool
  ) async throws -> [ObserverMessage] {
    try await withThrowingTaskGroup(of: [ObserverMessage]?.self) { group in
      group.addTask {
        var seen: [ObserverMessage] = []
        for try await message in observer {
          seen.append(message)
          if until(seen) { return seen }
        }
        return seen
      }
      group.addTask {
        try await Task.sleep(for: timeout)
        return nil
      }
      defer { group.cancelAll() }
      guard let first = try await group.next(), let seen = first else {
        throw WebSocketClientError.timeout("waiting for the observer's messages")
      }
      return seen
    }
  }

  /// `ObserverOptions.predict` through the running server: the moving touch's predicted
  /// position is in `TouchesMessage.predicted`, by its id, ahead of it in its direction.
  @Test func anObserverAskingForPredictionsGetsThemByTouchID() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let observer = try RelayObserver(url: relay.url("/v1/observe/ahead"), options: ObserverOptions(predict: 33))
    try await observer.start()
    let source = try RelaySource(url: relay.url("/v1/source/ahead"), hello: Hello(device: Self.device))
    _ = try await source.start()
    source.send([Self.touch(1, .began, 10)], t: 1000)
    source.send([Self.touch(1, .moved, 20)], t: 1016)
    source.send([Self.touch(1, .moved, 30)], t: 1032)
    let seen = try await Self.collect(observer) { seen in
      seen.contains { if case .touches(let t) = $0 { t.origin.seq == 3 } else { false } }
    }
    let last = seen.compactMap { if case .touches(let t) = $0, t.origin.seq == 3 { t } else { nil } }.first
    let ahead = try #require(last?.predicted[1], "no predicted position in \(String(describing: last))")
    // Moving right at 10 points per 16 ms: 33 ms on is well past 30, and on the same line.
    #expect(ahead.x > 40 && ahead.x < 60 && ahead.y == 100, "\(ahead)")
    #expect(last?.palms.isEmpty == true)
    await source.close()
    await observer.close()
  }

  @Test func sourceResumesAfterADropAndObserversSeeItRejoin() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let proxy = try await CuttableProxy(to: relay.port)
    defer { Task { await proxy.close() } }
    let observer = try RelayObserver(url: relay.url("/v1/observe/lib"), options: ObserverOptions(raw: true))
    try await observer.start()
    let tokens = NIOLockedValueBox(0)
    let source = try RelaySource(
      url: proxy.url("/v1/source/lib"), hello: Hello(device: Self.device),
      token: {
        tokens.withLockedValue { $0 += 1 }
        return nil
      })
    let welcome = try await source.start()
    let id = try #require(welcome.source)
    #expect(!welcome.resumed)
    source.send([Self.touch(1, .began, 10)], t: 1000)
    source.send([Self.touch(1, .moved, 20)], t: 1016)
    _ = try await Self.collect(observer) { seen in
      seen.contains { if case .touches(let t) = $0 { t.origin.seq == 2 } else { false } }
    }

    await proxy.cut()
    // The finger is still down after the drop; the next sample goes out once resumed.
    let afterDrop = try await Self.collect(observer) { seen in
      seen.contains { if case .source(let n) = $0 { n.event == .rejoined } else { false } }
    }
    #expect(
      afterDrop.contains { if case .source(let n) = $0 { n.event == .rejoined && n.source == id } else { false } })
    #expect(!afterDrop.contains { if case .source(let n) = $0 { n.event == .left } else { false } })
    source.send([Self.touch(1, .moved, 30)], t: 1010)  // an earlier t is kept from going back
    let resumed = try await Self.collect(observer) { seen in
      seen.contains { if case .touches = $0 { true } else { false } }
    }
    guard case .touches(let t)? = resumed.last else {
      Issue.record("no touches after the resume: \(resumed)")
      return
    }
    #expect(t.source == id)
    #expect(t.origin.seq == 3 && t.origin.t == 1016)
    // A new server-side connection state: the finger still down is announced again.
    #expect(t.touches.map(\.phase) == [.began])
    #expect(source.sourceID == id && source.reconnects == 1)
    #expect(tokens.withLockedValue { $0 } == 2)
    await source.close()
    await observer.close()
  }

  @Test func aStalledSocketMergesMovesAndKeepsBeginsAndEnds() async throws {
    let relay = try TestRelay {
      $0.limits.maxFramesPerSecond = 1_000_000
      $0.limits.observerQueue = 100_000
    }
    defer { relay.stop() }
    let proxy = try await CuttableProxy(to: relay.port)
    defer { Task { await proxy.close() } }
    let observer = try RelayObserver(url: relay.url("/v1/observe/stall"), options: ObserverOptions(raw: true))
    try await observer.start()
    var configuration = RelaySource.Configuration()
    configuration.bufferCapacity = 32
    configuration.websocket.sendBufferSize = 4096
    let source = try RelaySource(
      url: proxy.url("/v1/source/stall"), hello: Hello(device: Self.device), configuration: configuration)
    try await source.start()
    try await proxy.stall()
    let strokes = 20
    let moves = 150
    var t = 0.0
    for finger in 1...strokes {
      let id = Int64(finger)
      t += 1
      source.send([Self.touch(id, .began, 0)], t: t)
      for step in 1...moves {
        t += 1
        source.send([Self.touch(id, .moved, Double(step))], t: t)
      }
      t += 1
      source.send([Self.touch(id, .ended, Double(moves))], t: t)
    }
    let sent = strokes * (moves + 2)
    try await proxy.resume()
    let seen = try await Self.collect(observer) { seen in
      seen.contains {
        if case .touches(let m) = $0 {
          m.touches.first?.id == Int64(strokes) && m.touches.first?.phase == .ended
        } else {
          false
        }
      }
    }
    let frames = seen.compactMap { if case .touches(let m) = $0 { m } else { nil } }
    let merged = source.mergedSamples
    #expect(merged > 0, "the stall never backed up into the library's buffer")
    #expect(frames.count + merged == sent)
    for finger in 1...strokes {
      let phases = frames.flatMap(\.touches).filter { $0.id == Int64(finger) }.map(\.phase)
      #expect(phases.first == .began && phases.last == .ended)
      #expect(phases.filter { $0 == .began }.count == 1 && phases.filter { $0 == .ended }.count == 1)
    }
    let seqs = frames.map(\.origin.seq)
    #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 })
    #expect(!seen.contains { if case .dropped = $0 { true } else { false } })
    await source.close()
    await observer.close()
  }

  @Test func theSamplesOfOneSendLeaveInOneFramesMessage() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touch-relay-kit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let relay = try TestRelay { $0.recordDirectory = dir.path }
    defer { relay.stop() }
    let observer = try RelayObserver(url: relay.url("/v1/observe/batch"), options: ObserverOptions(raw: true))
    try await observer.start()
    let source = try RelaySource(url: relay.url("/v1/source/batch"), hello: Hello(device: Self.device))
    let welcome = try await source.start()
    #expect(welcome.maxFramesPerMessage == 64)
    // One event's coalesced samples: a finger lands, moves twice, lifts.
    source.send([
      Sample(t: 100, touches: [Self.touch(1, .began, 10)]),
      Sample(t: 104, touches: [Self.touch(1, .moved, 14)]),
      Sample(t: 108, touches: [Self.touch(1, .moved, 18)]),
      Sample(t: 112, touches: [Self.touch(1, .ended, 18)]),
    ])
    // Raw observers get one `touches` per sample, as if sent one by one.
    let seen = try await Self.collect(observer) { seen in
      seen.contains { if case .touches(let t) = $0 { t.touches.first?.phase == .ended } else { false } }
    }
    let frames = seen.compactMap { if case .touches(let t) = $0 { t.frame } else { nil } }
    #expect(frames.map(\.seq) == [1, 2, 3, 4])
    #expect(frames.map(\.t) == [100, 104, 108, 112])
    await source.close()
    await observer.close()
    // The server's recording holds what arrived: one message with the four samples.
    let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".jsonl") }
    let recording = try String(contentsOf: dir.appendingPathComponent(try #require(files.first)), encoding: .utf8)
    let inbound = recording.split(separator: "\n").filter { $0.contains(#""in":"#) && !$0.contains("hello") }
    #expect(inbound.count == 1)
    #expect(inbound.first?.contains(#"\"type\":\"frames\""#) == true)
  }

  @Test func sourceAndObserverOverTLS() async throws {
    try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl is needed (see .ci/run)")
    let (dir, cert, key) = try await TLSTests.makeCertificate()
    defer { try? FileManager.default.removeItem(at: dir) }
    let relay = try TestRelay {
      $0.tlsCertificate = cert
      $0.tlsKey = key
    }
    defer { relay.stop() }
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.trustRoots = .file(cert)
    var observing = RelayObserver.Configuration()
    observing.websocket.tls = tls
    let observer = try RelayObserver(
      url: "wss://127.0.0.1:\(relay.port)/v1/observe/tls", options: ObserverOptions(raw: true),
      configuration: observing)
    try await observer.start()
    var sending = RelaySource.Configuration()
    sending.websocket.tls = tls
    let source = try RelaySource(
      url: "wss://localhost:\(relay.port)/v1/source/tls", hello: Hello(device: Self.device), configuration: sending)
    let id = try #require(try await source.start().source)
    source.send([Self.touch(1, .began, 10)], t: 5)
    let seen = try await Self.collect(observer) { seen in
      seen.contains { if case .touches = $0 { true } else { false } }
    }
    #expect(seen.contains { if case .touches(let t) = $0 { t.source == id } else { false } })
    await source.close()
    await observer.close()
    // Without the certificate among its trust roots the client refuses the server.
    let untrusting = try RelaySource(
      url: "wss://127.0.0.1:\(relay.port)/v1/source/tls", hello: Hello(device: Self.device))
    await #expect(throws: (any Error).self) { try await untrusting.start() }
  }

  @Test func aSlowConsumerIsToldWhatTheServerDropped() async throws {
    let relay = try TestRelay {
      $0.limits.observerQueue = 32
      $0.gestures = false  // raw touches only: each frame is one message, delivered or dropped
      $0.limits.maxFramesPerSecond = 1_000_000
    }
    defer { relay.stop() }
    var slow = RelayObserver.Configuration()
    slow.highWater = 64
    slow.lowWater = 16
    slow.websocket.receiveBufferSize = 4096
    let observer = try RelayObserver(
      url: relay.url("/v1/observe/slow"), options: ObserverOptions(raw: true), configuration: slow)
    try await observer.start()
    let source = try RelaySource(url: relay.url("/v1/source/slow"), hello: Hello(device: Self.device))
    try await source.start()
    // About 1.3 KB per mirrored frame, and nobody reads the observer meanwhile: far more than
    // the library's high-water mark and the sockets' buffers hold.
    let samples = 6000
    for seq in 1...samples {
      let touches = (0..<20).map {
        TouchPoint(id: Int64($0), phase: seq == 1 ? .began : .moved, x: Double(seq % 400), y: 1)
      }
      source.send(touches, t: Double(seq))
    }
    try await eventually("the library has sent or merged every sample", timeout: TestTime.seconds(20)) {
      source.pendingSamples == 0
    }
    let sent = samples - source.mergedSamples
    let last = Int64(samples)
    let seen = try await Self.collect(observer, timeout: TestTime.seconds(30)) { seen in
      if case .touches(let t)? = seen.last { t.origin.seq == last } else { false }
    }
    let seqs = seen.compactMap { if case .touches(let t) = $0 { t.origin.seq } else { nil } }
    let delivered = seqs.count
    let dropped = seen.reduce(0) { if case .dropped(let n) = $1 { $0 + n } else { $0 } }
    #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 })
    #expect(dropped > 0, "the stall never made the server drop")
    #expect(delivered + dropped == sent, "delivered \(delivered) + dropped \(dropped) of \(sent)")
    await source.close()
    await observer.close()
  }

  @Test func observerReconnectsAndReappliesTheSnapshot() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let proxy = try await CuttableProxy(to: relay.port)
    defer { Task { await proxy.close() } }
    let source = try RelaySource(
      url: relay.url("/v1/source/snap"),
      hello: Hello(device: Self.device, scene: "flatcube"))
    let id = try #require(try await source.start().source)
    let observer = try RelayObserver(
      url: proxy.url("/v1/observe/snap"), options: ObserverOptions(source: id, gestures: [.tap]))
    try await observer.start()
    _ = try await Self.collect(observer) { $0.contains { if case .welcome = $0 { true } else { false } } }
    #expect(observer.session.sources.map(\.id) == [id])
    // A tap changes the scene while the observer is cut off.
    await proxy.cut()
    source.send([Self.touch(1, .began, 200)], t: 10)
    source.send([Self.touch(1, .ended, 200)], t: 60)
    let again = try await Self.collect(observer) { seen in
      seen.contains { if case .welcome = $0 { true } else { false } }
    }
    #expect(again.contains { if case .disconnected = $0 { true } else { false } })
    guard case .welcome(let w)? = again.last else {
      Issue.record("no second welcome: \(again)")
      return
    }
    #expect(w.sources.map(\.id) == [id])
    #expect(observer.session.scenes[id]?.state == w.scenes.first { $0.source == id }?.state)
    #expect(observer.reconnects == 1)
    await observer.close()
    await source.close()
  }
}

import Foundation
import OSC
import RelayServer
import Testing
import TouchProtocol
import TouchRelayClient

#if canImport(Glibc)
  import Glibc
#endif

/// TUIO out: a session's frames and gestures as TUIO 1.1 bundles and `/touchrelay/gesture`
/// messages, over UDP (`--tuio-out`) and to a WebSocket observer with `?format=tuio`.
@Suite struct TUIOOutTests {
  /// A UDP socket on a free loopback port, read with a time limit.
  final class Receiver {
    let fd: Int32
    let port: Int

    init() throws {
      let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      self.fd = fd
      var a = sockaddr_in()
      a.sin_family = sa_family_t(AF_INET)
      a.sin_addr.s_addr = inet_addr("127.0.0.1")
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      _ = withUnsafeMutablePointer(to: &a) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
          bind(fd, p, length)
          return getsockname(fd, p, &length)
        }
      }
      port = Int(UInt16(bigEndian: a.sin_port))
      var tv = timeval(tv_sec: 5, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next datagram, decoded (nil after 5 s of nothing).
    func next() -> OSCPacket? {
      var buffer = [UInt8](repeating: 0, count: 65536)
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard n > 0 else { return nil }
      guard case .success(let p) = OSCDecoder.decode(Array(buffer[0..<n])) else {
        Issue.record("the relay sent a datagram that is not OSC")
        return nil
      }
      return p
    }

    deinit { close(fd) }
  }

  /// `/tuio/2Dcur set` positions of a bundle, normalized.
  static func sets(_ p: OSCPacket) -> [(Float, Float)] {
    p.messages.compactMap { m in
      guard m.address == "/tuio/2Dcur", m.arguments.first == .string("set"),
        case .float32(let x) = m.arguments[2], case .float32(let y) = m.arguments[3]
      else { return nil }
      return (x, y)
    }
  }

  @Test func aTUIOTapComesOutAsBundlesAndAGestureOverUDP() async throws {
    let receiver = try Receiver()
    let relay = try TestRelay {
      $0.tuioUDP = "127.0.0.1:0"
      $0.tuioOut = ["tuio=127.0.0.1:\(receiver.port)"]
    }
    defer { relay.stop() }
    let udp = try TUIOServerTests.Sender(port: try #require(relay.server.tuioPort))
    udp.send(TUIOServerTests.tuio11(1, [(3, 0.123456, 0.654321)]))
    udp.send(TUIOServerTests.tuio11(2, []))
    let packets = await Task.detached { () -> [OSCPacket] in
      var got: [OSCPacket] = []
      // Two bundles, then the tap (after the double-tap wait, when the engine has one).
      while got.count < 3, let p = receiver.next() {
        got.append(p)
        if case .message(let m) = p, m.arguments.count > 1, m.arguments[1] == .string("tap") { break }
      }
      return got
    }.value
    let bundles = packets.filter { if case .bundle = $0 { return true } else { return false } }
    try #require(bundles.count >= 2)
    let first = bundles[0].messages
    guard case .string(let name) = first[0].arguments[1] else {
      Issue.record("no source")
      return
    }
    #expect(name.hasPrefix("touchrelay:s") && name.contains("@"))
    let set = try #require(Self.sets(bundles[0]).first)
    #expect(abs(Double(set.0) - 0.123456) < 1e-6 && abs(Double(set.1) - 0.654321) < 1e-6)
    #expect(first.last?.arguments == [.string("fseq"), .int32(1)])
    // The finger lifted: nothing alive.
    #expect(bundles[1].messages[1].arguments == [.string("alive")])
    let gesture = packets.compactMap { p -> OSCMessage? in
      if case .message(let m) = p, m.address == "/touchrelay/gesture" { return m }
      return nil
    }
    let tap = try #require(gesture.first { $0.arguments[1] == .string("tap") })
    #expect(tap.arguments[2] == .string("recognized"))
    guard case .float32(let x) = tap.arguments[4] else {
      Issue.record("no x")
      return
    }
    #expect(abs(Double(x) - 0.123456) < 1e-6)
  }

  @Test func aWebSocketObserverAsksForTUIO() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    #expect(await relay.upgradeStatus(relay.url("/v1/observe/o?format=osc")).0 == 400)
    let (watcher, _) = try await relay.observer("o", query: "format=tuio")
    let (src, _) = try await relay.source("o")
    // The source's join is a JSON notice.
    _ = try await watcher.nextJSON(type: "source")
    // In one flush: sent one by one, a busy machine could hold the second back past the long
    // press's 500 ms, and the finger would then be a long press, never a tap.
    try await src.send(texts: [
      frameText(1, t: 10, [(1, "began", 100, 200)]), frameText(2, t: 20, [(1, "ended", 100, 200)]),
    ])
    var bundles: [OSCPacket] = []
    var tap: OSCMessage?
    while tap == nil {
      let r = try await watcher.next(timeout: TestTime.seconds(10))
      guard case .binary(let bytes) = r else { continue }
      let p = try OSCDecoder.decode(bytes).get()
      switch p {
      case .bundle: bundles.append(p)
      case .message(let m): if m.arguments[1] == .string("tap") { tap = m }
      }
    }
    #expect(bundles.count == 2)
    let set = try #require(Self.sets(bundles[0]).first)
    // The source's surface is 400 x 800.
    #expect(set.0 == 0.25 && set.1 == 0.25)
  }
}

import Foundation
import OSC
import RelayServer
import Testing
import TouchProtocol
import TouchRelayClient

#if canImport(Glibc)
  import Glibc
#endif

/// TUIO senders over real UDP on loopback: they become sources of the TUIO session with
/// gestures, a silent one leaves, malformed datagrams are counted and harm nothing.
@Suite struct TUIOServerTests {
  /// A UDP socket sending to the relay's TUIO port.
  final class Sender {
    let fd: Int32
    var address = sockaddr_storage()
    let length: socklen_t

    init(port: Int, v6: Bool = false) throws {
      var storage = sockaddr_storage()
      fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
      if v6 {
        var a = sockaddr_in6()
        a.sin6_family = sa_family_t(AF_INET6)
        a.sin6_port = UInt16(port).bigEndian
        a.sin6_addr = in6addr_loopback
        withUnsafeBytes(of: a) { b in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: b) } }
        length = socklen_t(MemoryLayout<sockaddr_in6>.size)
      } else {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        withUnsafeBytes(of: a) { b in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: b) } }
        length = socklen_t(MemoryLayout<sockaddr_in>.size)
      }
      address = storage
      try #require(fd >= 0)
    }

    func send(_ bytes: [UInt8]) {
      let sent = bytes.withUnsafeBytes { b in
        withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, b.baseAddress, b.count, 0, $0, length) }
        }
      }
      #expect(sent == bytes.count)
    }

    deinit { close(fd) }
  }

  static func cur(_ args: OSCArgument...) -> OSCMessage { OSCMessage("/tuio/2Dcur", args) }

  static func tuio11(_ fseq: Int32, _ fingers: [(Int32, Double, Double)], source: String = "table") -> [UInt8] {
    var m = [cur(.string("source"), .string(source))]
    m.append(OSCMessage("/tuio/2Dcur", [.string("alive")] + fingers.map { .int32($0.0) }))
    for f in fingers {
      m.append(
        cur(
          .string("set"), .int32(f.0), .float32(Float(f.1)), .float32(Float(f.2)), .float32(0), .float32(0), .float32(0)
        ))
    }
    m.append(cur(.string("fseq"), .int32(fseq)))
    return OSCEncoder.encode(.bundle(OSCBundle(messages: m)))
  }

  static func tuio20(_ frame: Int32, _ fingers: [(Int32, Double, Double)]) -> [UInt8] {
    var m = [
      OSCMessage("/tuio2/frm", [.int32(frame), .timeTag(1), .int32(Int32(1000 << 16 | 500)), .string("app:1@x")])
    ]
    for f in fingers {
      m.append(
        OSCMessage(
          "/tuio2/ptr",
          [
            .int32(f.0), .int32(0), .int32(0), .float32(Float(f.1)), .float32(Float(f.2)), .float32(0), .float32(0),
            .float32(0), .float32(0),
          ]))
    }
    m.append(OSCMessage("/tuio2/alv", fingers.map { .int32($0.0) }))
    return OSCEncoder.encode(.bundle(OSCBundle(messages: m)))
  }

  func relay(timeout: Double = 3, host: String = "127.0.0.1") throws -> (TestRelay, Int) {
    let relay = try TestRelay {
      $0.tuioUDP = "\(host):0"
      $0.tuioTimeout = timeout
    }
    return (relay, try #require(relay.server.tuioPort))
  }

  @Test func aTUIO11TapBecomesASourceWithAGesture() async throws {
    let (relay, port) = try relay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("tuio", query: "raw=1")
    let udp = try Sender(port: port)
    udp.send(Self.tuio11(1, [(3, 0.5, 0.5)]))
    udp.send(Self.tuio11(2, [(3, 0.5, 0.5)]))
    udp.send(Self.tuio11(3, []))
    let joined = try await watcher.nextJSON(type: "source", timeout: TestTime.seconds(5))
    #expect(joined["event"]?.stringValue == "joined")
    #expect(joined["device"]?["name"]?.stringValue == "table")
    #expect(joined["device"]?["width"]?.doubleValue == 1920)
    let began = try await watcher.nextJSON(type: "touches", timeout: TestTime.seconds(5))
    #expect(began["touches"]?[0]?["x"]?.doubleValue == 960)
    #expect(began["touches"]?[0]?["phase"]?.stringValue == "began")
    var tap = try await watcher.nextJSON(type: "gesture", timeout: TestTime.seconds(5))
    while tap["gesture"]?.stringValue != "tap" {
      tap = try await watcher.nextJSON(type: "gesture", timeout: TestTime.seconds(5))
    }
    #expect(tap["x"]?.doubleValue == 960)
  }

  @Test func aTUIO20PinchAndASilentSenderLeaves() async throws {
    // Long enough that a busy machine's pause within the 20 bundles is not a silent sender.
    let (relay, port) = try relay(timeout: 2)
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("tuio", query: "gestures=pinch")
    let udp = try Sender(port: port)
    var pacer = Pacer(every: .milliseconds(16))
    for i in 0..<20 {
      let d = 0.1 + Double(i) * 0.01
      udp.send(Self.tuio20(Int32(i + 1), [(1, 0.5 - d, 0.5), (2, 0.5 + d, 0.5)]))
      try await pacer.next()
    }
    udp.send(Self.tuio20(30, []))
    let joined = try await watcher.nextJSON(type: "source", timeout: TestTime.seconds(5))
    #expect(joined["device"]?["width"]?.doubleValue == 1000 && joined["device"]?["height"]?.doubleValue == 500)
    let pinch = try await watcher.nextJSON(type: "gesture", timeout: TestTime.seconds(5))
    #expect(pinch["gesture"]?.stringValue == "pinch")
    let left = try await watcher.nextJSON(type: "source", timeout: TestTime.seconds(5))
    #expect(left["event"]?.stringValue == "left")
    #expect(left["source"] == joined["source"])
  }

  @Test func malformedDatagramsAreCountedAndHarmNothing() async throws {
    let (relay, port) = try relay()
    defer { relay.stop() }
    let udp = try Sender(port: port)
    let setArgs: [OSCArgument] = [
      .string("set"), .int32(1), .float32(0.5), .float32(0.5), .float32(0), .float32(0), .float32(0),
    ]
    var nan = OSCEncoder.encode(.message(OSCMessage("/tuio/2Dcur", setArgs)))
    // The x of the `set` (after the address, the tags, "set" and the session id).
    nan.replaceSubrange(32..<36, with: [0x7F, 0xC0, 0, 0])
    let bad: [[UInt8]] = [
      [],
      [0x2F],
      Array(Self.tuio11(1, [(1, 0.5, 0.5)]).dropLast(3)),
      Array("/tuio/2Dcur".utf8) + [0] + Array(",x".utf8) + [0, 0],
      nan,
      OSCEncoder.encode(.message(OSCMessage("/tuio/2Dcur", [.string("set"), .string("one")]))),
      OSCEncoder.encode(.message(OSCMessage("/somewhere/else", []))),
      Array("#bundle".utf8) + [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 16] + Array("#bundle".utf8) + [
        0, 0, 0, 0, 0, 0, 0, 0, 1,
      ],
      [UInt8](repeating: 0xFF, count: 60000),
    ]
    for b in bad { udp.send(b) }
    // Still serving: a good bundle after them makes a source.
    let (watcher, _) = try await relay.observer("tuio", query: "raw=1")
    udp.send(Self.tuio11(1, [(1, 0.25, 0.5)]))
    let touches = try await watcher.nextJSON(type: "touches", timeout: TestTime.seconds(5))
    #expect(touches["touches"]?[0]?["x"]?.doubleValue == 480)
    let text = try await HTTPClient.get("http://127.0.0.1:\(relay.port)/metrics").text
    #expect(metricValue(text, "touchrelay_tuio_datagrams_total") == Double(bad.count + 1))
    var malformed = 0.0
    for kind in ["truncated", "bad_type_tag", "non_finite", "bad_arguments", "unknown_address", "nested_bundle"] {
      let v = metricValue(text, #"touchrelay_tuio_malformed_total{kind="\#(kind)"}"#)
      #expect(v != nil, "\(kind)")
      malformed += v ?? 0
    }
    #expect(malformed == Double(bad.count))
    #expect(metricValue(text, "touchrelay_tuio_frames_total") == 1)
  }

  @Test func anIPv6SenderKeepsItsWholeAddress() async throws {
    let (relay, port) = try relay(host: "[::1]")
    defer { relay.stop() }
    let (watcher, welcome) = try await relay.observer("tuio")
    #expect(welcome["sources"]?.arrayValue?.isEmpty == true)
    let udp = try Sender(port: port, v6: true)
    udp.send(Self.tuio11(1, [(1, 0.5, 0.5)], source: "v6table"))
    let joined = try await watcher.nextJSON(type: "source", timeout: TestTime.seconds(5))
    #expect(joined["device"]?["name"]?.stringValue == "v6table")
  }

  /// The TUIO socket is closed with the server (lws closes what it adopted): servers started
  /// and stopped leave no UDP port bound.
  @Test func theSocketIsClosedWithTheServer() async throws {
    let (relay, port) = try relay()
    await relay.stopAndWait()
    let again = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    defer { close(again) }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = UInt16(port).bigEndian
    a.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &a) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(again, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    #expect(bound == 0, "port \(port) still bound after the server stopped")
  }
}

import OSC
import RelayServer
import Testing
import TouchProtocol
import TouchRelayClient

/// Pens through the running server's TUIO: a TUIO 2.0 sender's pressure and radius reach a raw
/// observer as `pressure` and `radius`, and a `?format=tuio` observer gets no cursor for a pen
/// hovering above the glass.
extension TUIOServerTests {
  /// A TUIO 2.0 bundle on a 1000 x 500 sensor: `(id, x, y, radius, press)` per pointer.
  static func pens(_ frame: Int32, _ fingers: [(Int32, Double, Double, Double, Double)]) -> [UInt8] {
    var m = [
      OSCMessage("/tuio2/frm", [.int32(frame), .timeTag(1), .int32(Int32(1000 << 16 | 500)), .string("pens:1@x")])
    ]
    for f in fingers {
      m.append(
        OSCMessage(
          "/tuio2/ptr",
          [
            .int32(f.0), .int32(0), .int32(0), .float32(Float(f.1)), .float32(Float(f.2)), .float32(0), .float32(0),
            .float32(Float(f.3)), .float32(Float(f.4)),
          ]))
    }
    m.append(OSCMessage("/tuio2/alv", fingers.map { .int32($0.0) }))
    return OSCEncoder.encode(.bundle(OSCBundle(messages: m)))
  }

  @Test func aTUIO20PointersPressureAndRadiusReachRawObservers() async throws {
    let (relay, port) = try relay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("tuio", query: "raw=1")
    let udp = try Sender(port: port)
    // Radius 1/64 of the sensor's width: 15.625 of its 1000 points.
    udp.send(Self.pens(1, [(5, 0.5, 0.5, 1.0 / 64, 0.5)]))
    udp.send(Self.pens(2, [(5, 0.5, 0.5, 1.0 / 64, 0.75)]))
    udp.send(Self.pens(3, []))
    let began = try await watcher.nextJSON(type: "touches", timeout: TestTime.seconds(5))
    let t = try #require(began["touches"]?[0])
    #expect(t["phase"]?.stringValue == "began")
    #expect(t["pressure"]?.doubleValue == 0.5 && t["radius"]?.doubleValue == 15.625)
    let harder = try await watcher.nextJSON(type: "touches", timeout: TestTime.seconds(5))
    #expect(harder["touches"]?[0]?["phase"]?.stringValue == "moved")
    #expect(harder["touches"]?[0]?["pressure"]?.doubleValue == 0.75)
  }

  @Test func aFormatTUIOObserverGetsNoCursorForAHoveringPen() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    let (watcher, _) = try await relay.observer("p", query: "format=tuio")
    let (src, _) = try await relay.source("p")
    _ = try await watcher.nextJSON(type: "source")
    try await src.send(texts: [
      #"{"type":"frame","seq":1,"t":10,"touches":[{"id":1,"phase":"began","x":100,"y":200},"#
        + #"{"id":-2,"phase":"began","x":50,"y":50,"kind":"pen","hover":true}]}"#,
      #"{"type":"frame","seq":2,"t":20,"touches":[{"id":1,"phase":"stationary","x":100,"y":200},"#
        + #"{"id":-2,"phase":"moved","x":60,"y":50,"kind":"pen","hover":true}]}"#,
    ])
    let bundles = try await watcher.tuioCursorBundles(2)
    for b in bundles { #expect(b.messages.filter { $0.arguments.first == .string("set") }.count == 1) }
    // One cursor, the finger's, in both bundles.
    #expect(bundles.map { $0.alive?.count } == [1, 1])
  }

  @Test func aFormatTUIO2ObserverGetsPointersWithPressureAndRadius() async throws {
    let relay = try TestRelay()
    defer { relay.stop() }
    #expect(await relay.upgradeStatus(relay.url("/v1/observe/q?format=tuio3")).0 == 400)
    let (watcher, _) = try await relay.observer("q", query: "format=tuio2")
    let (src, _) = try await relay.source("q")
    _ = try await watcher.nextJSON(type: "source")
    try await src.send(texts: [
      #"{"type":"frame","seq":1,"t":10,"touches":[{"id":1,"phase":"began","x":100,"y":200,"kind":"pen","#
        + #""pressure":0.5,"radius":4},{"id":-2,"phase":"began","x":50,"y":50,"kind":"pen","hover":true}]}"#
    ])
    var ptrs: [OSCMessage] = []
    while ptrs.isEmpty {
      guard case .binary(let bytes) = try await watcher.next(timeout: TestTime.seconds(10)) else { continue }
      guard case .bundle(let b) = try OSCDecoder.decode(bytes).get() else { continue }
      #expect(b.messages.first?.address == "/tuio2/frm")
      ptrs = b.messages.filter { $0.address == "/tuio2/ptr" }
    }
    // The source's surface is 400 x 800: one pointer (the hovering pen is none), its radius
    // 4/400 of the width and its press the pressure.
    #expect(ptrs.count == 1)
    #expect(ptrs.first?.arguments.suffix(2) == [.float32(0.01), .float32(0.5)])
    #expect(ptrs.first?.arguments[3] == .float32(0.25) && ptrs.first?.arguments[4] == .float32(0.25))
  }
}

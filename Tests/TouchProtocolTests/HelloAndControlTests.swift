import Testing

@testable import TouchProtocol

@Suite struct HelloAndControlTests {
  let decoder = MessageDecoder()

  @Test func decodesTheIssueHello() throws {
    let text =
      #"{"type":"hello","device":{"name":"Pixel 8","width":412,"height":915},"scene":"flatcube","regions":[{"id":"red","x":40,"y":100,"width":200,"height":200}]}"#
    guard case .hello(let h) = try decoder.decode(text).get() else {
      Issue.record("not a hello")
      return
    }
    #expect(h.device == Device(name: "Pixel 8", width: 412, height: 915))
    #expect(h.scene == "flatcube")
    #expect(h.regions == [Region(id: "red", x: 40, y: 100, width: 200, height: 200)])
    #expect(h.resume == nil)
  }

  @Test func helloErrorsNameTheField() {
    let cases: [(String, ErrorCode, String)] = [
      (#"{"type":"hello"}"#, .missingField, "device"),
      (#"{"type":"hello","device":{"name":"x","width":1}}"#, .missingField, "device.height"),
      (#"{"type":"hello","device":{"name":"x","width":"1","height":1}}"#, .wrongType, "device.width"),
      (#"{"type":"hello","device":{"name":"x","width":0,"height":1}}"#, .badValue, "width"),
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"regions":[{"id":"","x":0,"y":0,"width":1,"height":1}]}"#,
        .badValue, "regions[0]"
      ),
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"regions":[{"id":"a","x":0,"y":0,"width":-1,"height":1}]}"#,
        .badValue, "regions[0]"
      ),
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"tapMode":"sometimes"}}"#, .badValue,
        "tapMode"
      ),
      (#"{"type":"hello","device":{"name":"x","width":NaN,"height":1}}"#, .nonFinite, "NaN"),
      (#"{"type":"hello","device":{"name":"x","width":1e400,"height":1}}"#, .nonFinite, "1e400"),
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"tapMaxCount":0}}"#, .badValue,
        "tapMaxCount"
      ),
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"pinchThreshold":-1}}"#, .badValue,
        "pinchThreshold"
      ),
      // The message lists every valid preset; names are lowercase, as the wire spells them.
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"preset":"windows"}}"#, .badValue,
        #"config.preset must be "ios", "android" or "flutter""#
      ),
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"preset":"Android"}}"#, .badValue,
        "config.preset"
      ),
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"preset":""}}"#, .badValue,
        "config.preset"
      ),
      (
        #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"preset":7}}"#, .wrongType,
        "config.preset"
      ),
    ]
    for (text, expected, mention) in cases {
      guard case .failure(let e) = decoder.decode(text) else {
        Issue.record("accepted: \(text)")
        continue
      }
      #expect(e.code == expected, "\(text): \(e)")
      #expect(e.message.contains(mention), "\(e.message) should mention \(mention)")
    }
  }

  @Test func presetDecodesBesideOtherMembers() throws {
    let text =
      #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"preset":"flutter","longPressDuration":700}}"#
    guard case .hello(let h) = try decoder.decode(text).get() else {
      Issue.record("not a hello")
      return
    }
    #expect(h.config?.preset == "flutter")
    #expect(h.config?.longPressDuration == 700)
    for name in GesturePreset.allCases.map(\.rawValue) {
      let one = #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"preset":"\#(name)"}}"#
      #expect(throws: Never.self) { try decoder.decode(one).get() }
    }
    let none = #"{"type":"hello","device":{"name":"x","width":1,"height":1},"config":{"preset":null}}"#
    guard case .hello(let n) = try decoder.decode(none).get() else {
      Issue.record("not a hello")
      return
    }
    #expect(n.config?.preset == nil)
  }

  @Test func controlDecodes() throws {
    #expect(
      try decoder.decode(#"{"type":"control","recognizeAny":true}"#).get() == .control(Control(recognizeAny: true)))
    #expect(
      try decoder.decode(#"{"type":"control","action":"reset","source":"s2"}"#).get()
        == .control(Control(action: "reset", source: "s2")))
    if case .failure(let e) = decoder.decode(#"{"type":"control","recognizeAny":"yes"}"#) {
      #expect(e.code == .wrongType)
    } else {
      Issue.record("accepted a string switch")
    }
  }
}

@Suite struct SourceValidatorTests {
  let hello = ClientMessage.hello(Hello(device: Device(name: "d", width: 100, height: 100)))

  func frame(_ seq: Int64, _ t: Double) -> ClientMessage { .frame(Frame(seq: seq, t: t, touches: [])) }

  @Test func helloComesFirst() {
    var v = SourceValidator()
    #expect(v.accept(frame(1, 0))?.code == .noHello)
    #expect(v.accept(.control(Control(action: "reset")))?.code == .noHello)
    #expect(v.accept(hello) == nil)
    #expect(v.accept(frame(1, 0)) == nil)
  }

  @Test func seqMustIncreaseAndTimeMustNotGoBack() {
    var v = SourceValidator()
    _ = v.accept(hello)
    #expect(v.accept(frame(5, 100)) == nil)
    #expect(v.accept(frame(5, 101))?.code == .seqNotIncreasing)
    #expect(v.accept(frame(4, 101))?.code == .seqNotIncreasing)
    #expect(v.accept(frame(6, 99))?.code == .timeBackwards)
    // A refused frame leaves the state as it was: the next good frame is judged against seq 5.
    #expect(v.accept(frame(6, 100)) == nil)
    #expect(v.accept(frame(9, 250)) == nil)
    #expect(v.lastSeq == 9 && v.lastT == 250)
  }
}

@Suite struct SessionNameTests {
  @Test func acceptsTheDocumentedAlphabet() {
    #expect(SessionName.isValid("demo"))
    #expect(SessionName.isValid("A-z_0-9"))
    #expect(SessionName.isValid(String(repeating: "a", count: 64)))
  }

  @Test func refusesEverythingElse() {
    for bad in ["", String(repeating: "a", count: 65), "a b", "a/b", "é", "a.b", "a%20", "..", "a\u{0}"] {
      #expect(!SessionName.isValid(bad), "\(bad)")
    }
  }
}

import ConformanceSupport
import Testing
import TouchProtocol

/// Reading a `touches` message's entries back, and splicing `predicted` into them.
@Suite struct TouchesMessageEntriesTests {
  func entries(_ text: String) -> [TouchesMessageEntries.Entry]? {
    Array(text.utf8).withUnsafeBytes { TouchesMessageEntries($0)?.entries }
  }

  @Test func entriesAreReadWithWhereEachEnds() throws {
    let text =
      #"{"type":"touches","source":"s1","rt":5,"seq":1,"t":10,"touches":[{"id":1,"phase":"moved","x":1.5,"y":2,"#
      + #""kind":"pen","hover":true},{"id":2,"phase":"ended","x":3,"y":4,"palm":true}]}"#
    let got = try #require(entries(text))
    #expect(got.map(\.id) == [1, 2])
    #expect(got.map(\.phase) == [.moved, .ended])
    #expect(got.map(\.x) == [1.5, 3] && got.map(\.y) == [2, 4])
    #expect(got.map(\.hovering) == [true, false])
    let bytes = Array(text.utf8)
    #expect(got.allSatisfy { bytes[$0.end] == UInt8(ascii: "}") })
    var w = JSONWriter()
    bytes.withUnsafeBytes {
      ServerMessage.writePredicted($0, [ServerMessage.Prediction(end: got[0].end, x: 7.25, y: -1)], &w)
    }
    #expect(
      String(decoding: w.bytes, as: UTF8.self)
        == #"{"type":"touches","source":"s1","rt":5,"seq":1,"t":10,"touches":[{"id":1,"phase":"moved","x":1.5,"y":2,"#
        + #""kind":"pen","hover":true,"predicted":{"x":7.25,"y":-1}},{"id":2,"phase":"ended","x":3,"y":4,"palm":true}]}"#)
  }

  @Test func whatIsNotATouchesMessageIsNotRead() {
    for bad in [
      "", "[]", #"{"type":"touches"}"#, #"{"touches":{}}"#, #"{"touches":[1]}"#,
      #"{"touches":[{"id":1,"phase":"moved","x":1}]}"#, #"{"touches":[{"id":1.5,"phase":"moved","x":1,"y":2}]}"#,
      #"{"touches":[{"id":1,"phase":"flying","x":1,"y":2}]}"#, #"{"touches":[{"id":1,"phase":"moved","x":"1","y":2}]}"#,
      #"{"touches":[{"id":1,"phase":"moved","x":1,"y":2}]"#, #"{"touches":[{"id":1,"phase":"moved","x":1,"y":NaN}]}"#,
    ] {
      #expect(entries(bad) == nil, "\(bad)")
    }
    #expect(entries(#"{"touches":[]}"#) == [])
  }

  /// A record from the bus is anyone's bytes: mangled messages are read back or refused, never
  /// a crash, and what is read back splices into valid JSON.
  @Test func mangledMessagesAreReadBackOrRefusedAndSpliceIntoJSON() {
    let base = Array(
      (#"{"type":"touches","source":"A.s1","seq":3,"t":1020,"rt":5.5,"touches":[{"id":1,"phase":"moved","#
        + #""x":30,"y":10,"kind":"pen","pressure":0.5},{"id":2,"phase":"began","x":1e2,"y":-3.25,"hover":false}]}"#).utf8)
    let alphabet = Array(#"{}[]",:0123456789.-e truefalsnul\"#.utf8)
    var rng = SeededLCG(state: 40)
    var readBack = 0
    for _ in 0..<5000 {
      var bytes = base
      for _ in 0...rng.below(4) {
        let i = rng.below(bytes.count)
        switch rng.below(4) {
        case 0: bytes[i] = alphabet[rng.below(alphabet.count)]
        case 1: bytes.remove(at: i)
        case 2: bytes.insert(alphabet[rng.below(alphabet.count)], at: i)
        default: bytes.removeSubrange(i...)
        }
        if bytes.isEmpty { break }
      }
      bytes.withUnsafeBytes { raw in
        guard let entries = TouchesMessageEntries(raw)?.entries else { return }
        readBack += 1
        #expect(entries.allSatisfy { raw[$0.end] == UInt8(ascii: "}") })
        var w = JSONWriter()
        ServerMessage.writePredicted(raw, entries.map { ServerMessage.Prediction(end: $0.end, x: 1, y: 2) }, &w)
        w.withUnsafeBytes { out in
          #expect(JSONSyntax.isValue(out), "\(String(decoding: bytes, as: UTF8.self))")
        }
      }
    }
    #expect(readBack > 100, "mutations too harsh to test the splice: \(readBack)")
  }
}

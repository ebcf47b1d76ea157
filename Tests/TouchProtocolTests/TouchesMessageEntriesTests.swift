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
}

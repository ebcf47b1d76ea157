import Foundation

/// Writes a `--record` file the way the server does, from touches given as a script: a
/// recording made without a server or a phone, so a test knows exactly what is in it.
struct RecordingScript {
  private(set) var lines: [String]
  private var seq = 0
  private var t = 0.0

  init(hello: String, session: String = "drawn") {
    lines = [
      #"{"type":"recording","version":1,"session":"\#(session)","connection":7,"rt":1000,"gestures":true}"#
    ]
    add(hello, rt: 1000)
    lines.append(#"{"joined":"s1"}"#)
  }

  /// One frame `ms` after the previous one, with the given touches (id, phase, x, y).
  mutating func frame(after ms: Double, _ touches: [(Int, String, Double, Double)]) {
    seq += 1
    t += ms
    let list = touches.map { #"{"id":\#($0.0),"phase":"\#($0.1)","x":\#($0.2),"y":\#($0.3)}"# }.joined(separator: ",")
    add(#"{"type":"frame","seq":\#(seq),"t":\#(t),"touches":[\#(list)]}"#, rt: 1000 + t / 1000)
  }

  /// One frame `ms` after the previous one, with touch entries given as JSON (for members
  /// beyond id, phase and position: a pen's `kind`, `hover`).
  mutating func frame(after ms: Double, json touches: [String]) {
    seq += 1
    t += ms
    add(#"{"type":"frame","seq":\#(seq),"t":\#(t),"touches":[\#(touches.joined(separator: ","))]}"#, rt: 1000 + t / 1000)
  }

  private mutating func add(_ message: String, rt: Double) {
    let data = try! JSONSerialization.data(withJSONObject: ["rt": rt, "in": message], options: [.sortedKeys])
    lines.append(String(decoding: data, as: UTF8.self))
  }

  var text: String { lines.joined(separator: "\n") + "\n" }
}

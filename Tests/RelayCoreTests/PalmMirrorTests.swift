import Foundation
import RelayCore
import Testing
import TouchProtocol

/// Palms in the raw mirror (gestures.md, "Palm rejection"): the same source messages through a
/// core with the gesture engine and one without (`--no-gestures`, which marks nothing). Every
/// `touches` message is byte for byte the same in both, but for the palm entries, which carry
/// `"palm":true` after the source's members.
@Suite struct PalmMirrorTests {
  /// The text of every `touches` message a raw observer gets for `messages`.
  static func mirrored(_ messages: [String], gestures: Bool) throws -> [String] {
    let h = CoreHarness { $0.gestures = gestures }
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s")
    _ = h.messages(obs)
    for (i, m) in messages.enumerated() { h.send(m, from: src, at: Double(i)) }
    return h.messages(obs).map(\.text).filter { $0.hasPrefix(#"{"type":"touches""#) }
  }

  @Test func onlyPalmEntriesDifferFromTheSourcesBytes() throws {
    let palm = #"{"id":2,"phase":"began","x":300,"y":600,"radius":96}"#
    let messages = [
      #"{"type":"frame","seq":1,"t":100,"touches":[{"id":1,"phase":"began","x":10,"y":20}]}"#,
      // A frames message: the palm lands in the second sample, beside a pen in the third.
      #"{"type":"frames","frames":[{"seq":2,"t":110,"touches":[{"id":1,"phase":"moved","x":11,"y":20}]},"#
        + #"{"seq":3,"t":120,"touches":[{"id":1,"phase":"moved","x":12,"y":20},\#(palm)]},"#
        + #"{"seq":4,"t":130,"touches":[{"id":1,"phase":"ended","x":12,"y":20},{"id":2,"phase":"moved","x":300,"y":601},"#
        + #"{"id":9,"phase":"began","x":50,"y":50,"kind":"pen"},{"id":3,"phase":"began","x":90,"y":90}]}]}"#,
      #"{"type":"frame","seq":5,"t":140,"touches":[{"id":9,"phase":"ended","x":50,"y":50,"kind":"pen"},{"id":3,"phase":"ended","x":90,"y":90}]}"#,
      #"{"type":"frame","seq":6,"t":150,"touches":[{"id":4,"phase":"began","x":70,"y":70}]}"#,
    ]
    let plain = try Self.mirrored(messages, gestures: false)
    let marked = try Self.mirrored(messages, gestures: true)
    #expect(plain.count == 6 && marked.count == 6)
    var expected = plain
    // seq 3: the palm by its radius; seq 4: still a palm (no radius now), and the finger that
    // lands beside the pen; seq 5: that finger's lift, still a palm.
    expected[2] = plain[2].replacingOccurrences(of: #""radius":96}"#, with: #""radius":96,"palm":true}"#)
    expected[3] = plain[3].replacingOccurrences(of: #""y":601}"#, with: #""y":601,"palm":true}"#)
      .replacingOccurrences(of: #""x":90,"y":90}"#, with: #""x":90,"y":90,"palm":true}"#)
    expected[4] = plain[4].replacingOccurrences(of: #""x":90,"y":90}"#, with: #""x":90,"y":90,"palm":true}"#)
    for i in [2, 3, 4] { #expect(expected[i] != plain[i], "seq \(i + 1) has a palm") }
    #expect(marked == expected)
  }

  /// A `predict=MS` observer's copy keeps the palm mark, its `predicted` after it (the last
  /// member, as for any moved entry).
  @Test func aPredictingObserverGetsPalmThenPredicted() throws {
    let h = CoreHarness()
    var filter = ObserverFilter(raw: true)
    filter.predict = 16
    let (obs, _) = try h.observer("s", filter)
    let (src, _) = try h.source("s")
    _ = h.messages(obs)
    for (i, x) in [300, 310, 320].enumerated() {
      let phase = i == 0 ? "began" : "moved"
      h.send(
        #"{"type":"frame","seq":\#(i + 1),"t":\#(i * 16),"touches":[{"id":2,"phase":"\#(phase)","x":\#(x),"y":600,"radius":96}]}"#,
        from: src, at: Double(i))
    }
    let last = try #require(h.messages(obs).map(\.text).last { $0.hasPrefix(#"{"type":"touches""#) })
    #expect(last.contains(#""x":320,"y":600,"radius":96,"palm":true,"predicted":{"#), "\(last)")
  }
}

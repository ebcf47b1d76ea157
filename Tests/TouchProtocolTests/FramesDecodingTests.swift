import Testing

@testable import TouchProtocol

/// `frames`: several samples in one message. Each sample is read like a `frame`'s body and
/// refused on its own; only what makes the message itself unreadable refuses it whole.
@Suite struct FramesDecodingTests {
  let decoder = MessageDecoder()

  func samples(_ text: String, _ decoder: MessageDecoder = MessageDecoder()) throws -> [Result<Frame, ProtocolError>] {
    guard case .frames(let s) = try decoder.decode(text).get() else {
      Issue.record("not frames: \(text)")
      throw ProtocolError(.unknownType, "not frames")
    }
    return s
  }

  func refusal(_ text: String, _ decoder: MessageDecoder = MessageDecoder()) -> ProtocolError? {
    if case .failure(let e) = decoder.decode(text) { return e }
    return nil
  }

  @Test func eachSampleIsAFrameOldestFirst() throws {
    let s = try samples(
      #"{"type":"frames","frames":[{"seq":1,"t":10,"touches":[{"id":1,"phase":"began","x":1,"y":2}]},"#
        + #"{"touches":[{"y":4,"x":3,"phase":"moved","id":1}],"t":14.5,"seq":2}]}"#)
    #expect(
      s == [
        .success(Frame(seq: 1, t: 10, touches: [TouchPoint(id: 1, phase: .began, x: 1, y: 2)])),
        .success(Frame(seq: 2, t: 14.5, touches: [TouchPoint(id: 1, phase: .moved, x: 3, y: 4)])),
      ])
  }

  @Test func theTypeMayComeLastAndAnEmptyListIsNothing() throws {
    let s = try samples(#"{"frames":[{"seq":3,"t":0,"touches":[]}],"seq":99,"type":"frames"}"#)
    #expect(s == [.success(Frame(seq: 3, t: 0, touches: []))])
    #expect(try samples(#"{"type":"frames","frames":[]}"#).isEmpty)
  }

  /// A bad sample gets its own error with its seq; the ones after it still decode.
  @Test func aSampleRefusedForItsOwnContentLeavesTheOthers() throws {
    let cases: [(String, ErrorCode)] = [
      (#"{"seq":2,"t":1,"touches":[{"id":1,"phase":"hovering","x":1,"y":1}]}"#, .unknownPhase),
      (
        #"{"seq":2,"t":1,"touches":[{"id":1,"phase":"moved","x":1,"y":1},{"id":1,"phase":"moved","x":2,"y":2}]}"#,
        .duplicateTouchID
      ),
      (#"{"seq":2,"t":1,"touches":[{"id":1,"phase":"moved","x":NaN,"y":1}]}"#, .nonFinite),
      (#"{"seq":2,"t":1e999,"touches":[]}"#, .nonFinite),
      (#"{"seq":2,"t":1,"touches":[{"id":1,"phase":"moved","x":1,"y":1,"force":-Infinity}]}"#, .nonFinite),
      (#"{"seq":2,"t":1,"touches":[],"extra":[nan]}"#, .nonFinite),
      (#"{"seq":2,"t":"1","touches":[]}"#, .wrongType),
      (#"{"seq":2,"touches":[]}"#, .missingField),
      (#"{"seq":2.5,"t":1,"touches":[]}"#, .badValue),
    ]
    for (bad, code) in cases {
      let s = try samples(
        #"{"type":"frames","frames":[{"seq":1,"t":0,"touches":[]},"# + bad + #",{"seq":3,"t":2,"touches":[]}]}"#)
      #expect(s.count == 3, "\(bad)")
      #expect(s.first == .success(Frame(seq: 1, t: 0, touches: [])), "\(bad)")
      #expect(s.last == .success(Frame(seq: 3, t: 2, touches: [])), "\(bad)")
      guard case .failure(let e) = s[1] else {
        Issue.record("\(bad) was accepted")
        continue
      }
      #expect(e.code == code, "\(bad): \(e)")
      if code != .badValue { #expect(e.seq == 2, "\(bad): \(e)") }
      #expect(e.message.hasPrefix("frames[1]: "), "\(e.message)")
    }
  }

  @Test func aSampleThatIsNotAnObjectIsRefusedAlone() throws {
    let s = try samples(#"{"type":"frames","frames":[7,NaN,{"seq":1,"t":0,"touches":[]}]}"#)
    #expect(s.count == 3)
    #expect(s.map { (try? $0.get()) == nil } == [true, true, false])
    if case .failure(let e) = s[0] { #expect(e.code == .wrongType && e.seq == nil) }
    if case .failure(let e) = s[1] { #expect(e.code == .nonFinite) }
  }

  @Test func tooManyTouchesIsTheSamplesFault() throws {
    var limits = Limits()
    limits.maxTouchesPerFrame = 1
    let d = MessageDecoder(limits: limits)
    let s = try samples(
      #"{"type":"frames","frames":[{"seq":1,"t":0,"touches":[{"id":1,"phase":"began","x":1,"y":1},{"id":2,"phase":"began","x":1,"y":1}]},{"seq":2,"t":0,"touches":[]}]}"#,
      d)
    guard case .failure(let e) = s[0] else { return #expect(Bool(false)) }
    #expect(e.code == .tooManyTouches && e.seq == 1)
    #expect(s[1] == .success(Frame(seq: 2, t: 0, touches: [])))
  }

  /// What makes the message itself unreadable refuses it whole, with one error.
  @Test func anUnreadableMessageIsRefusedWhole() {
    let cases: [(String, ErrorCode)] = [
      (#"{"type":"frames","frames":[{"seq":1,"t":0,"touches":[]},{"seq":2,"t":0,"touches":[}]}"#, .badJSON),
      (#"{"type":"frames","frames":[{"seq":1,"t":0,"touches":[]}]"#, .badJSON),
      (#"{"type":"frames","frames":{"seq":1,"t":0,"touches":[]}}"#, .wrongType),
      (#"{"type":"frames","frames":null}"#, .wrongType),
      (#"{"type":"frames"}"#, .missingField),
      (#"{"type":"frames","frames":[],"other":NaN}"#, .nonFinite),
    ]
    for (text, code) in cases {
      #expect(refusal(text)?.code == code, "\(text)")
    }
  }

  @Test func atMostMaxFramesPerMessage() throws {
    let sample = #"{"seq":1,"t":0,"touches":[]}"#
    let full = #"{"type":"frames","frames":["# + Array(repeating: sample, count: 64).joined(separator: ",") + "]}"
    #expect(try samples(full).count == 64)
    let over = #"{"type":"frames","frames":["# + Array(repeating: sample, count: 65).joined(separator: ",") + "]}"
    let e = refusal(over)
    #expect(e?.code == .tooManyFrames)
    #expect(e?.message.contains("64") == true)
    // Even with a non-finite number past the limit, the count is the complaint.
    let overNaN =
      #"{"type":"frames","frames":["# + Array(repeating: sample, count: 64).joined(separator: ",")
      + #",{"seq":NaN}]}"#
    #expect(refusal(overNaN)?.code == .tooManyFrames)
    var limits = Limits()
    limits.maxFramesPerMessage = 2
    #expect(refusal(#"{"type":"frames","frames":[{},{},{}]}"#, MessageDecoder(limits: limits))?.code == .tooManyFrames)
  }

  /// Depth counts from the message: a sample's touches sit two levels deeper than a frame's.
  @Test func nestingIsCountedFromTheMessage() throws {
    var limits = Limits()
    limits.maxDepth = 5
    let d = MessageDecoder(limits: limits)
    let ok = #"{"type":"frames","frames":[{"seq":1,"t":0,"touches":[{"id":1,"phase":"began","x":1,"y":1}]}]}"#
    #expect(try samples(ok, d).count == 1)
    let deep = #"{"type":"frames","frames":[{"seq":1,"t":0,"touches":[{"id":1,"phase":"began","x":1,"y":1,"a":[]}]}]}"#
    #expect(refusal(deep, d)?.code == .badJSON)
  }

  /// `frames` is only read as samples for a `frames` message: elsewhere it is an unknown
  /// member, ignored, though a non-finite number in it still refuses the message.
  @Test func aFramesMemberOfAnotherMessageIsIgnored() throws {
    let f = try decoder.decode(#"{"type":"frame","seq":1,"t":0,"touches":[],"frames":[{"seq":"x"}]}"#).get()
    #expect(f == .frame(Frame(seq: 1, t: 0, touches: [])))
    #expect(refusal(#"{"type":"frame","seq":1,"t":0,"touches":[],"frames":[{"t":NaN}]}"#)?.code == .nonFinite)
    // A sample's own `type` or `frames` members are unknown members of the sample.
    let s = try samples(#"{"type":"frames","frames":[{"type":"frame","seq":1,"t":0,"touches":[],"frames":[1]}]}"#)
    #expect(s == [.success(Frame(seq: 1, t: 0, touches: []))])
  }
}

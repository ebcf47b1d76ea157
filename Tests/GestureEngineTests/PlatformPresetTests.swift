import Testing
import TouchProtocol

@testable import GestureEngine

private let phone = Device(name: "test", width: 390, height: 844)

private func config(_ preset: String?, _ change: (inout GestureConfig) -> Void = { _ in }) -> GestureConfig {
  var c = GestureConfig()
  c.preset = preset
  change(&c)
  return c
}

/// `hello.config.preset`: a platform's thresholds under the members given beside it
/// (protocol/gestures.md, "Platform presets").
@Suite struct PlatformPresetTests {
  @Test func withoutAPresetNothingChanges() {
    #expect(GestureSettings(config: config(nil)) == GestureSettings())
    #expect(GestureSettings(config: nil) == GestureSettings())
  }

  @Test func androidTakesViewConfigurationsValues() {
    let s = GestureSettings(config: config("android"))
    #expect(s.tapMaxDuration == 400)
    #expect(s.tapMaxMovement == 8)
    #expect(s.multiTapInterval == 300)
    #expect(s.multiTapDistance == 100)
    #expect(s.longPressDuration == 400)
    #expect(s.longPressMaxMovement == 8)
    #expect(s.panThreshold == 8)
    #expect(s.swipeMinDistance == 8)
    #expect(s.swipeMinVelocity == 0.05)
  }

  @Test func flutterTakesConstantsDartsValues() {
    let s = GestureSettings(config: config("flutter"))
    #expect(s.tapMaxDuration == 500)
    #expect(s.tapMaxMovement == 18)
    #expect(s.multiTapInterval == 300)
    #expect(s.multiTapDistance == 100)
    #expect(s.longPressDuration == 500)
    #expect(s.longPressMaxMovement == 18)
    #expect(s.panThreshold == 36)
    #expect(s.swipeMinDistance == 18)
    #expect(s.swipeMinVelocity == 0.05)
  }

  /// UIKit publishes only the long press's defaults; everything else stays the engine's.
  @Test func iosSetsWhatUIKitDocumentsAndLeavesTheRest() {
    let s = GestureSettings(config: config("ios"))
    #expect(s.longPressDuration == 500)
    #expect(s.longPressMaxMovement == 10)
    var rest = s
    rest.longPressDuration = GestureSettings().longPressDuration
    rest.longPressMaxMovement = GestureSettings().longPressMaxMovement
    #expect(rest == GestureSettings())
  }

  @Test func membersBesideThePresetOverrideItAndTheRestOfThePresetStays() {
    let s = GestureSettings(
      config: config("android") {
        $0.longPressDuration = 600
        $0.tapMaxMovement = 20
      })
    #expect(s.longPressDuration == 600)
    #expect(s.tapMaxMovement == 20)
    #expect(s.longPressMaxMovement == 8)
    #expect(s.panThreshold == 8)
    #expect(s.tapMaxDuration == 400)
  }

  /// Presets set no tap count: a scene's own default (flatcube counts every tap at once) and
  /// the members no preset touches are what they were.
  @Test func thePresetLeavesTheScenesDefaultsAndOtherMembersAlone() {
    let s = GestureSettings(config: config("flutter") { $0.tapMode = "immediate" }, defaultTapMaxCount: 1)
    #expect(s.tapMaxCount == 1)
    #expect(s.deferredTaps == false)
    #expect(s.pinchThreshold == GestureSettings().pinchThreshold)
    #expect(s.velocityWindow == GestureSettings().velocityWindow)
    #expect(s.tapMaxDuration == 500)
  }

  /// Through the decoder as a source sends it, and the same hold of 450 ms under two presets:
  /// a long press at 400 ms under `android`, nothing under `ios` (0.5 s).
  @Test func theSameHoldIsALongPressUnderAndroidOnly() throws {
    func events(_ preset: String) throws -> [GestureEvent] {
      let text = #"{"type":"hello","device":{"name":"p","width":390,"height":844},"config":{"preset":"\#(preset)"}}"#
      guard case .hello(let hello) = try MessageDecoder().decode(text).get() else {
        throw PresetTestError.notAHello
      }
      var e = SourceEngine(hello: hello, maxFingers: 10)
      var out = e.process(Frame(seq: 1, t: 0, touches: [TouchPoint(id: 1, phase: .began, x: 100, y: 100)])).events
      out += e.advance(to: 449).events
      out += e.process(Frame(seq: 2, t: 450, touches: [TouchPoint(id: 1, phase: .ended, x: 100, y: 100)])).events
      out += e.advance(to: 2000).events
      return out
    }
    let android = try events("android")
    #expect(android.map(\.gesture) == [.longpress, .longpress])
    #expect(android.map(\.state) == [.began, .ended])
    #expect(android.first?.t == 400)
    #expect(try events("ios").isEmpty)
  }

  /// A repeated hello's preset applies from the next touch sequence, like any config.
  @Test func aPresetInARepeatedHelloAppliesFromTheNextSequence() {
    var e = SourceEngine(hello: Hello(device: phone), maxFingers: 10)
    _ = e.process(Frame(seq: 1, t: 0, touches: [TouchPoint(id: 1, phase: .began, x: 100, y: 100)]))
    _ = e.update(hello: Hello(device: phone, config: config("android")))
    // The press that was down goes on with the defaults: no long press at 400.
    #expect(e.advance(to: 450).events.isEmpty)
    _ = e.process(Frame(seq: 2, t: 460, touches: [TouchPoint(id: 1, phase: .ended, x: 100, y: 100)]))
    _ = e.process(Frame(seq: 3, t: 1000, touches: [TouchPoint(id: 2, phase: .began, x: 100, y: 100)]))
    let out = e.advance(to: 1400)
    #expect(out.events.map(\.gesture) == [.longpress])
    #expect(out.events.first?.t == 1400)
  }
}

private enum PresetTestError: Error { case notAHello }

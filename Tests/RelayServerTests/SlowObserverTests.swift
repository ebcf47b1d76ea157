import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// An observer that stops reading must cost nobody else anything, and must be told exactly
/// what it missed.
@Suite struct SlowObserverTests {
  @Test func aStalledObserverDelaysNobodyAndIsToldWhatItMissed() async throws {
    let relay = try TestRelay {
      $0.limits.observerQueue = 32
      // Raw touches only, so every message is accounted for by seq.
      $0.gestures = false
      // A burst far beyond a phone's rate, on purpose.
      $0.limits.maxFramesPerSecond = 1_000_000
    }
    defer { relay.stop() }
    var small = WebSocketConfiguration()
    small.receiveBufferSize = 4096
    let (stalled, _) = try await relay.observer("slow", query: "raw=1", configuration: small)
    try await stalled.pauseReading()
    let (brisk, _) = try await relay.observer("slow", query: "raw=1")
    let (src, _) = try await relay.source("slow")
    _ = try await brisk.nextJSON(type: "source")

    // About 1.3 KB per mirrored frame: far more than the stalled socket's buffers hold.
    // The source streams in windows of 16 frames (a fast phone, not a flood), so the brisk
    // observer's 32-message queue never needs to drop: whatever it misses is the stall's fault.
    let frames = 6000
    let window = 16
    let fingers = (0..<20).map { $0 }
    var received = 0
    for start in stride(from: 1, through: frames, by: window) {
      for seq in start..<min(start + window, frames + 1) {
        let touches = fingers.map { (id: $0, phase: seq == 1 ? "began" : "moved", x: Double(seq % 400), y: Double($0)) }
        try await src.send(text: frameText(seq, t: Double(seq), touches))
      }
      // The brisk observer gets every frame, in order, while the other one reads nothing.
      while received < min(start + window - 1, frames) {
        let m = try await brisk.nextJSON(timeout: .seconds(30))
        #expect(m["type"]?.stringValue == "touches", "brisk observer got \(m.jsonString)")
        received += 1
        #expect(m["seq"]?.intValue == received)
        if m["seq"]?.intValue != received { return }
      }
    }
    // The source was never blocked: it still gets an answer at once.
    try await src.send(text: "ping?")
    #expect(try await src.nextErrorCode(timeout: .seconds(5)) == "bad_json")

    // Now the stalled observer reads: every frame is either delivered or counted as dropped.
    try await stalled.resumeReading()
    var delivered = 0
    var dropped = 0
    var droppedNotices = 0
    var lastSeq = 0
    while lastSeq < frames {
      let m = try await stalled.nextJSON(timeout: .seconds(30))
      switch m["type"]?.stringValue {
      case "touches":
        let seq = try #require(m["seq"]?.intValue)
        #expect(seq > lastSeq, "out of order: \(seq) after \(lastSeq)")
        lastSeq = seq
        delivered += 1
      case "dropped":
        dropped += try #require(m["count"]?.intValue)
        droppedNotices += 1
      default:
        continue
      }
    }
    #expect(droppedNotices >= 1)
    #expect(dropped > 0)
    #expect(delivered + dropped == frames, "delivered \(delivered) + dropped \(dropped) != \(frames)")
  }
}

import Testing
import TouchProtocol
import TouchRelayKit

@Suite struct SampleBufferTests {
  static func frame(_ seq: Int64, _ touches: [(Int64, TouchPhase)]) -> Frame {
    Frame(seq: seq, t: Double(seq), touches: touches.map { TouchPoint(id: $0.0, phase: $0.1, x: Double(seq), y: 0) })
  }

  @Test func belowCapacityEverySampleIsKept() {
    var buffer = SampleBuffer(capacity: 4)
    for seq in 1...4 { buffer.append(Self.frame(Int64(seq), [(1, .moved)])) }
    #expect(buffer.count == 4 && buffer.merged == 0)
    #expect(buffer.take(10).map(\.seq) == [1, 2, 3, 4])
    #expect(buffer.isEmpty)
  }

  @Test func atCapacityMovesOfTheSameFingersReplaceTheNewest() {
    var buffer = SampleBuffer(capacity: 2)
    buffer.append(Self.frame(1, [(1, .began)]))
    buffer.append(Self.frame(2, [(1, .moved)]))
    for seq in 3...10 { buffer.append(Self.frame(Int64(seq), [(1, .moved)])) }
    #expect(buffer.merged == 8)
    let kept = buffer.take(10)
    #expect(kept.map(\.seq) == [1, 10])
    // The survivor carries the latest position.
    #expect(kept.last?.touches.first?.x == 10)
  }

  @Test func beginsEndsAndOtherFingerSetsAreNeverReplaced() {
    var buffer = SampleBuffer(capacity: 1)
    buffer.append(Self.frame(1, [(1, .began)]))
    buffer.append(Self.frame(2, [(1, .moved)]))
    buffer.append(Self.frame(3, [(1, .moved), (2, .began)]))
    buffer.append(Self.frame(4, [(1, .moved), (2, .moved)]))
    buffer.append(Self.frame(5, [(1, .stationary), (2, .moved)]))
    buffer.append(Self.frame(6, [(1, .ended), (2, .moved)]))
    buffer.append(Self.frame(7, [(2, .moved)]))
    buffer.append(Self.frame(8, [(2, .cancelled)]))
    #expect(buffer.take(100).map(\.seq) == [1, 2, 3, 5, 6, 7, 8])
    #expect(buffer.merged == 1)
  }
}

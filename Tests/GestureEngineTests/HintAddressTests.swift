import Testing
import TouchProtocol

@testable import GestureEngine

/// The engine hands the server prefetch hints (`withHotBuffers`): the heap buffer of the
/// fingers down and that of the pan's velocity history. A hint that points anywhere else is
/// harmless but useless, and nothing else would notice, so these read what the hints point at.
@Suite struct HintAddressTests {
  @Test func anArraysHintIsItsBufferJustBeforeItsElements() {
    let fingers = [1.5, 2.5, 3.5]
    fingers.withUnsafeBytes { elements in
      #expect(elements.baseAddress.map { $0 - hintAddress(of: fingers) } == arrayHeaderBytes)
    }
    let samples = Array(repeating: (t: 0.0, x: 1.0, y: 2.0), count: 40)
    samples.withUnsafeBytes { elements in
      #expect(elements.baseAddress.map { $0 - hintAddress(of: samples) } == arrayHeaderBytes)
    }
  }

  @Test func anEnginesHotBuffersAreItsFingersAndThePansHistory() throws {
    var e = SourceEngine(hello: Hello(device: Device(name: "t", width: 400, height: 400)), maxFingers: 10)
    _ = e.process(
      Frame(
        seq: 1, t: 1000,
        touches: [
          TouchPoint(id: 7, phase: .began, x: 10, y: 20), TouchPoint(id: 9, phase: .began, x: 50, y: 60),
        ]))
    // Both fingers move by (4, 6): the pan's translation, and so its newest sample, is (4, 6).
    _ = e.process(
      Frame(
        seq: 2, t: 1016,
        touches: [
          TouchPoint(id: 7, phase: .moved, x: 14, y: 26), TouchPoint(id: 9, phase: .moved, x: 54, y: 66),
        ]))
    var hints: [(address: UnsafeRawPointer, bytes: Int)] = []
    e.withHotBuffers { hints.append(($0, $1)) }
    try #require(hints.count == 2)

    // The fingers, in landing order, each as the last frame left it.
    let fingers = hints[0]
    let fingerStride = MemoryLayout<Finger>.stride
    #expect(fingers.bytes >= arrayHeaderBytes + 2 * fingerStride)
    for (i, (id, x, y)) in [(Int64(7), 14.0, 26.0), (Int64(9), 54.0, 66.0)].enumerated() {
      let finger = fingers.address + arrayHeaderBytes + i * fingerStride
      #expect(finger.load(fromByteOffset: try #require(MemoryLayout<Finger>.offset(of: \.id)), as: Int64.self) == id)
      #expect(finger.load(fromByteOffset: try #require(MemoryLayout<Finger>.offset(of: \.x)), as: Double.self) == x)
      #expect(finger.load(fromByteOffset: try #require(MemoryLayout<Finger>.offset(of: \.y)), as: Double.self) == y)
    }

    // The pan's history: the touch-down at (0, 0), then the move's translation.
    let history = hints[1]
    let sampleStride = MemoryLayout<VelocityTracker.Sample>.stride
    #expect(history.bytes >= arrayHeaderBytes + 2 * sampleStride)
    for (i, (t, x, y)) in [(1000.0, 0.0, 0.0), (1016.0, 4.0, 6.0)].enumerated() {
      let sample = (history.address + arrayHeaderBytes + i * sampleStride).load(as: VelocityTracker.Sample.self)
      #expect(sample.t == t && sample.x == x && sample.y == y, "sample \(i): \(sample)")
    }
  }
}

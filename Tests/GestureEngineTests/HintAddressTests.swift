import Testing
import TouchProtocol

@testable import GestureEngine

/// `hintAddress(of:)` relies on how a native array is laid out: one reference to a heap
/// buffer whose elements follow a 32-byte header. If that ever changes, the prefetch hints
/// point at the wrong memory (harmless, but useless), and this fails.
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

  @Test func anEnginesHotBuffersAreItsFingersAndThePansHistory() {
    var e = SourceEngine(hello: Hello(device: Device(name: "t", width: 100, height: 100)), maxFingers: 10)
    _ = e.process(Frame(seq: 1, t: 0, touches: [TouchPoint(id: 1, phase: .began, x: 5, y: 5)]))
    var hints: [(UnsafeRawPointer, Int)] = []
    e.withHotBuffers { hints.append(($0, $1)) }
    #expect(hints.count == 2 && hints.allSatisfy { $0.1 >= 64 })
  }
}

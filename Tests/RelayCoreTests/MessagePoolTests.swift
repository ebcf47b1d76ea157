import ConformanceSupport
import Testing
import TouchProtocol

@testable import RelayCore

/// The pool keeps a written message only when nothing else refers to it, and a message written
/// over a kept one is byte for byte a new one.
@Suite struct MessagePoolTests {
  func make(_ pool: inout MessagePool, _ text: String, headroom: Int = 16) -> OutgoingMessage {
    pool.message(headroom: headroom, capacity: 8, supersedable: true, createdAt: 7) { w in
      w.beginObject()
      w.key("text")
      w.string(text)
      w.endObject()
    }
  }

  @Test func aMessageNothingElseHoldsIsWrittenOverByTheNext() {
    var pool = MessagePool()
    var first: OutgoingMessage? = make(&pool, "first")
    let firstID = ObjectIdentifier(first!)
    // The driver's lws wrote a frame header into the headroom.
    first!.bytes.baseAddress!.storeBytes(of: 0xFF, as: UInt8.self)
    pool.recycle(first.take()!)
    #expect(pool.count == 1)
    let long = String(repeating: "x", count: 300)
    let second = make(&pool, long)
    #expect(ObjectIdentifier(second) == firstID)
    #expect(pool.count == 0)
    // Grown past its first buffer, headroom zeroed again, every field the new message's.
    #expect(second.text == #"{"text":"\#(long)"}"#)
    #expect(Array(second.bytes.prefix(16)) == Array(repeating: 0, count: 16))
    #expect(second.headroom == 16 && second.supersedable && second.createdAt == 7 && !second.isBinary)
  }

  @Test func aMessageStillQueuedElsewhereIsNotKept() {
    var pool = MessagePool()
    let shared = make(&pool, "fan-out")
    var otherQueue = [shared]
    pool.recycle(consume shared)
    #expect(pool.count == 0)
    // The last observer's write hands back the last reference.
    pool.recycle(otherQueue.removeLast())
    #expect(pool.count == 1)
  }

  @Test func thePoolStaysSmall() {
    var pool = MessagePool(limit: 3, maxBytes: 256)
    for i in 0..<5 { pool.recycle(make(&pool, "message \(i)")) }
    #expect(pool.count == 1)
    let held = (0..<5).map { make(&pool, "message \($0)") }
    for m in held { pool.recycle(m) }
    // Still referenced by `held`: none kept.
    #expect(pool.count == 0)
    var loose = (0..<5).map { _ in make(&pool, "message") }
    while let m = loose.popLast() { pool.recycle(m) }
    #expect(pool.count == 3)
    var big = MessagePool(limit: 3, maxBytes: 256)
    big.recycle(make(&big, String(repeating: "y", count: 400)))
    #expect(big.count == 0)
  }

  /// A run whose written messages all go back to the pool, as the driver hands them back,
  /// gives every observer the same bytes as a run that keeps none.
  @Test func recyclingChangesNoByteObserversGet() throws {
    func run(recycling: Bool) throws -> (texts: [String], kept: Int) {
      let h = CoreHarness()
      let (raw, _) = try h.observer("s")
      let (gestures, _) = try h.observer("s", ObserverFilter(raw: false))
      let (src, _) = try h.source("s", at: 1)
      _ = h.take(raw)
      _ = h.take(gestures)
      var texts: [String] = []
      var kept = 0
      for i in 1...40 {
        let phase = i == 1 || i == 21 ? "began" : i == 20 || i == 40 ? "ended" : "moved"
        h.send(h.frame(i, t: Double(1000 + i * 16), [(1, phase, Double(10 + i * 7), 50)]), from: src, at: Double(i * 16))
        for peer in [raw, gestures] {
          while case .message(let m, _) = h.core.nextWrite(for: peer.id) {
            texts.append(m.text)
            if recycling { h.core.recycle(consume m) }
          }
        }
        kept = max(kept, h.core.deliveries.messagePool.count)
      }
      return (texts, kept)
    }
    let plain = try run(recycling: false)
    let recycled = try run(recycling: true)
    #expect(plain.texts.count > 40)
    #expect(recycled.texts == plain.texts)
    #expect(plain.kept == 0)
    #expect(recycled.kept > 0)
  }
}

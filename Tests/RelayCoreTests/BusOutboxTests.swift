import Testing

@testable import RelayCore

/// The bus driver publishes only while `busDataPending` is above 0 (RedisBus.flush): once the
/// data message is taken, nothing may be reported pending, or the driver wakes every loop
/// iteration to publish nothing.
@Suite struct BusOutboxTests {
  @Test func nothingIsPendingOnceTheMessageIsTaken() {
    var outbox = BusOutbox(node: "n1", epoch: 1)
    #expect(outbox.byteCount == 0)
    [UInt8](repeating: 7, count: 3).withUnsafeBytes { payload in
      outbox.append(
        .touches, supersedable: true, session: "s", source: "n1-1", origin: nil, payload: payload,
        extra: UnsafeRawBufferPointer(start: nil, count: 0))
    }
    #expect(outbox.byteCount > 0)
    let message = outbox.take()
    #expect(message?.count ?? 0 > 0)
    #expect(outbox.byteCount == 0)
    #expect(outbox.take() == nil)
  }
}

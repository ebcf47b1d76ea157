import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// Numbers on the bus the core cannot use (issue 37, found by `fuzz-bus`): a record carrying
/// one is malformed, counted and ignored like any other garbage on the bus, and the node goes
/// on. Each data message here is what node A would publish for its source `A.s1` joining
/// session `s`, but for the one number under test, written byte by byte as the bus's format
/// says (protocol/README.md, "Cluster"): node B, which has an observer of `s`, reads it.
@Suite struct BusRecordBoundsTests {
  struct Numbers {
    var stream: UInt64 = 1
    var sessionSeq: UInt64 = 1
    var seq: Int64 = 0
    var t: Double = 0
    var rt: Double = 5
  }

  /// A data message of node A (epoch 1) with one `source` record, `joined`.
  static func joined(_ n: Numbers) -> [UInt8] { joined([n]) }

  /// A data message of node A (epoch 1) with a `source` record, `joined`, for each of `records`.
  static func joined(_ records: [Numbers]) -> [UInt8] {
    var b: [UInt8] = Array("TRB1".utf8)
    func name(_ s: String) {
      b.append(UInt8(s.utf8.count))
      b.append(contentsOf: s.utf8)
    }
    func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { b.append(contentsOf: $0) } }
    func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { b.append(contentsOf: $0) } }
    func payload(_ s: String) {
      u32(UInt32(s.utf8.count))
      b.append(contentsOf: s.utf8)
    }
    name("A")
    u64(1)
    u32(UInt32(records.count))
    for n in records {
      b.append(UInt8(ascii: "J"))
      b.append(0)
      name("s")
      name("A.s1")
      u64(n.stream)
      u64(n.sessionSeq)
      u64(UInt64(bitPattern: n.seq))
      u64(n.t.bitPattern)
      u64(n.rt.bitPattern)
      name("joined")
      let info = #"{"id":"A.s1","device":{"name":"phone","width":400,"height":800}}"#
      payload(#"{"type":"source","event":"joined","source":\#(info)}"#)
      payload(info)
    }
    return b
  }

  /// Node B with an observer of `s`, having heard node A, gets `message`: what its observer
  /// is sent, and B's counts of malformed messages.
  static func deliver(_ message: [UInt8]) throws -> (types: [String?], malformed: [String: Int]) {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obs, _) = try nodes.b.observer("s", at: 1)
    _ = nodes.b.take(obs)
    message.withUnsafeBytes { nodes.b.core.busReceived(data: $0, at: 2) }
    let types = nodes.b.take(obs).map(\.type)
    return (types, nodes.b.core.cluster?.counters.malformed ?? [:])
  }

  @Test func aRecordWithUsableNumbersReachesTheObserver() throws {
    let got = try Self.deliver(Self.joined(Numbers()))
    #expect(got.types == ["source"])
    #expect(got.malformed.isEmpty)
    let large = Numbers(stream: 1 << 53 - 1, sessionSeq: 1 << 53 - 1, seq: 1 << 53 - 1, t: -1e300, rt: 4e12)
    let onLarge = try Self.deliver(Self.joined(large))
    #expect(onLarge.types.last == "source")
    #expect(onLarge.malformed.isEmpty)
  }

  /// The fuzzer's crash (`regression-rt-out-of-range` in the kept corpus): `rt` 2.4e24 ms, whose
  /// nanoseconds are no Int64, trapped making the message for the observer.
  @Test(arguments: [2.4e24, -1, Double.greatestFiniteMagnitude, 9.3e12])
  func aServerTimeOutOfRangeIsMalformed(_ rt: Double) throws {
    let got = try Self.deliver(Self.joined(Numbers(rt: rt)))
    #expect(got.types.isEmpty)
    #expect(got.malformed == ["out_of_range": 1])
  }

  /// `sessionSeq + 1` overflowed at UInt64.max; a gap above Int.max trapped converting.
  @Test(arguments: [UInt64.max, UInt64(Int64.max) + 2, 1 << 53])
  func aSessionNumberOutOfRangeIsMalformed(_ sessionSeq: UInt64) throws {
    let got = try Self.deliver(Self.joined(Numbers(sessionSeq: sessionSeq)))
    #expect(got.types.isEmpty)
    #expect(got.malformed == ["out_of_range": 1])
  }

  @Test func aStreamOrSeqOutOfRangeIsMalformed() throws {
    for n in [Numbers(stream: UInt64.max), Numbers(seq: -1), Numbers(seq: Int64.max), Numbers(seq: 1 << 53)] {
      let got = try Self.deliver(Self.joined(n))
      #expect(got.types.isEmpty, "\(n)")
      #expect(got.malformed == ["out_of_range": 1], "\(n)")
    }
  }

  /// Each gap is below 2^53, but a message may carry many: the sums of what was missed (the
  /// node's count, each observer's `dropped`) stop at 2^53 - 1 instead of overflowing.
  @Test func manyLargeGapsInOneMessageAreCountedWithoutOverflow() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obs, _) = try nodes.b.observer("s", at: 1)
    _ = nodes.b.take(obs)
    let records = (1...1100).flatMap { stream in
      [Numbers(stream: UInt64(stream), sessionSeq: 1), Numbers(stream: UInt64(stream), sessionSeq: 1 << 53 - 1)]
    }
    Self.joined(records).withUnsafeBytes { nodes.b.core.busReceived(data: $0, at: 2) }
    #expect(nodes.b.core.cluster?.counters.missedRecords == 1 << 53 - 1)
    #expect(nodes.b.core.cluster?.counters.malformed.isEmpty == true)
  }

  /// After a sequence number out of range the node still applies the next good message.
  @Test func theNodeGoesOnAfterARefusedRecord() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    let (obs, _) = try nodes.b.observer("s", at: 1)
    _ = nodes.b.take(obs)
    Self.joined(Numbers(sessionSeq: UInt64.max, rt: 2.4e24)).withUnsafeBytes {
      nodes.b.core.busReceived(data: $0, at: 2)
    }
    Self.joined(Numbers()).withUnsafeBytes { nodes.b.core.busReceived(data: $0, at: 3) }
    #expect(nodes.b.take(obs).map(\.type) == ["source"])
    #expect(nodes.b.core.cluster?.counters.malformed == ["out_of_range": 1])
  }
}

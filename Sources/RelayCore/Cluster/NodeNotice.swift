/// A message on the nodes' channel: a heartbeat, a request to announce sources again, or a
/// clean goodbye.
public struct NodeNotice: Equatable, Sendable {
  public var kind: NodeNoticeKind
  public var node: String
  public var epoch: UInt64
  /// `sync`: the node asked (empty: every node).
  public var target: String

  public init(kind: NodeNoticeKind, node: String, epoch: UInt64, target: String = "") {
    self.kind = kind
    self.node = node
    self.epoch = epoch
    self.target = target
  }

  public var encoded: [UInt8] {
    var w = BusWriter()
    for c in "TRN1".utf8 { w.u8(c) }
    w.u8(kind.rawValue)
    w.name(node)
    w.u64(epoch)
    w.name(target)
    return w.bytes
  }

  public static func decode(_ bytes: UnsafeRawBufferPointer) -> Result<NodeNotice, BusFormatError> {
    var r = BusReader(bytes)
    do throws(BusFormatError) {
      try r.expect("TRN1")
      let k = try r.u8()
      guard let kind = NodeNoticeKind(rawValue: k) else { throw .badKind(k) }
      let node = try r.name()
      // Not bounded: an epoch is an identifier (`ClusterRules.epoch`, random over the whole
      // range), only ever compared.
      let epoch = try r.u64()
      let target = try r.name(allowEmpty: true)
      guard r.atEnd else { throw .trailingBytes }
      return .success(NodeNotice(kind: kind, node: node, epoch: epoch, target: target))
    } catch {
      return .failure(error)
    }
  }
}

import TouchProtocol

/// The bus's events, routed to the cluster part (`ClusterNode`) when this relay is a node of a
/// cluster: the one place that asks whether it is.
extension RelayCore {
  /// The cluster part for this call, if this relay is a node.
  var clusterNode: ClusterNode? {
    guard let cluster else { return nil }
    return ClusterNode(core: self, cluster: cluster)
  }

  /// The data message to publish on this node's channel, if records are waiting.
  public func takeBusData() -> [UInt8]? { cluster?.outbox.take() }

  /// Bytes waiting for `takeBusData`.
  public var busDataPending: Int { cluster?.outbox.byteCount ?? 0 }

  /// What a clean shutdown says last on the nodes' channel.
  public var busGoodbye: [UInt8]? {
    guard let cluster else { return nil }
    return NodeNotice(kind: .bye, node: cluster.node, epoch: cluster.rules.epoch).encoded
  }

  /// The driver's subscriptions are in place (the nodes' channel and every known node's): ask
  /// every node to announce its sources, so what changed while the bus was away is learned.
  public func busConnected(at rt: Double) {
    now = rt
    clusterNode?.busConnected(at: rt)
  }

  /// The bus is unreachable: local sessions go on; what other nodes send meanwhile is lost, and
  /// found as gaps once it is back.
  public func busDisconnected(at rt: Double) {
    now = rt
    clusterNode?.busDisconnected(at: rt)
  }

  /// The driver subscribed to `node`'s data channel: ask it for its sources.
  public func busSubscribed(node: String, at rt: Double) {
    now = rt
    clusterNode?.busSubscribed(node: node, at: rt)
  }

  /// Once a second (`ClusterRules.heartbeatInterval`): the heartbeat to publish comes out as
  /// a `.busNotice`, first among this event's actions; nodes silent past the timeout are dead;
  /// held sources whose time is up have left. Not a node: nothing.
  public func busHeartbeat(at rt: Double) {
    now = rt
    clusterNode?.busHeartbeat(at: rt)
  }

  /// A message on the nodes' channel.
  public func busReceived(notice bytes: UnsafeRawBufferPointer, at rt: Double) {
    now = rt
    clusterNode?.busReceived(notice: bytes, at: rt)
  }

  /// A data message read from another node's channel (see `ClusterNode.busReceived(data:at:)`).
  public func busReceived(data bytes: UnsafeRawBufferPointer, at rt: Double) {
    now = rt
    clusterNode?.busReceived(data: bytes, at: rt)
  }
}

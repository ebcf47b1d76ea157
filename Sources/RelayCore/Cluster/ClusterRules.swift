/// A cluster node's settings and the times its rules use.
public struct ClusterRules: Sendable {
  /// This node's name (`--node-id`): in source ids, logs, metrics.
  public var node: String
  /// This incarnation of the node: the driver picks a new one at each start, so a node restarted
  /// under the same name is not taken for the one before it.
  public var epoch: UInt64
  /// A node not heard for this long (ms) is dead: its sources' gestures are cancelled and its
  /// sources held for a resume. Heartbeats come every `heartbeatInterval`.
  public var nodeTimeout: Double = 3000
  public var heartbeatInterval: Double = 1000
  /// A source another node reported dropped is held this much longer than the resume window
  /// before this node gives up on hearing its `left` (its node may have died meanwhile).
  public var departedGrace: Double = 2000

  public init(node: String, epoch: UInt64) {
    self.node = node
    self.epoch = epoch
  }
}

/// Another node of the cluster, as heard on the bus.
final class RemoteNode {
  let id: String
  /// Its incarnation: a node restarted under the same id has a new one.
  var epoch: UInt64
  /// When it was last heard (server ms): silent for `ClusterRules.nodeTimeout`, it is dead.
  var lastHeard: Double
  /// It has answered a `sync` once: from then on a stream of it seen from the middle is a gap.
  var synced = false
  /// When this node last asked it for a `sync` (server ms): at most one a second.
  var syncAskedAt: Double?

  init(id: String, epoch: UInt64, lastHeard: Double) {
    self.id = id
    self.epoch = epoch
    self.lastHeard = lastHeard
  }
}

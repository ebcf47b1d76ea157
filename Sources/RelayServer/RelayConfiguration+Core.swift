import RelayCore

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension RelayConfiguration {
  /// The relay core's rules from the server's settings.
  var coreConfiguration: RelayCore.Configuration {
    var c = RelayCore.Configuration()
    c.limits = limits
    c.gestures = gestures
    c.resumeWindow = resumeWindow
    c.drainTimeout = drainTimeout
    c.maxPendingErrors = maxPendingErrors
    c.essentialOverflowFactor = essentialOverflowFactor
    c.record = recordDirectory != nil
    c.nodeID = nodeID
    if redisURL != nil {
      // A new epoch each start: a node restarted under the same name is a new incarnation.
      c.cluster = ClusterRules(node: nodeID, epoch: UInt64.random(in: 1...UInt64.max))
    }
    c.tuioHost = ProcessInfo.processInfo.hostName
    return c
  }
}

import Foundation
import RelayCore

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
    c.tuioHost = ProcessInfo.processInfo.hostName
    return c
  }
}

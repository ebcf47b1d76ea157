import Logging
import TouchProtocol

extension RelayCore {
  /// The rules' settings: what the relay allows and how long it waits. The server's
  /// `RelayConfiguration` fills it from the command line.
  public struct Configuration: Sendable {
    public var limits = Limits()
    /// Run the gesture engine for every source; off, only the raw mirror is relayed.
    public var gestures = true
    /// Seconds a source that dropped without a clean close may come back with `hello.resume`.
    public var resumeWindow: Double = 10
    /// Seconds peers get on shutdown to take their pending messages before 1001.
    public var drainTimeout: Double = 5
    /// Errors queued for a source that does not read, beyond which further errors are dropped.
    public var maxPendingErrors = 64
    /// A queue of never-droppable messages longer than this multiple of the queue length closes
    /// the observer (1008): the server cannot keep its promise to a peer that stopped reading.
    public var essentialOverflowFactor = 4
    /// Emit `.record` actions: every source's input, timer firings and close, with server times.
    public var record = false
    /// Spare bytes in front of every encoded message, for the driver's framing (LWS_PRE).
    public var headroom = 0
    /// This node's name among several (`/healthz` says it); nil: not said.
    public var nodeID: String?
    /// `.log` actions below this level are not made at all.
    public var logLevel = Logger.Level.info
    /// Set: this relay is a node of a cluster (`RelayCore+Cluster`).
    public var cluster: ClusterRules?
    /// The host in TUIO out's source names, `touchrelay:s1@HOST`.
    public var tuioHost = "localhost"

    public init() {}
  }
}

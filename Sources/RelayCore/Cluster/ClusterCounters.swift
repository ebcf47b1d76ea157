/// What the cluster side of the core counts for `/metrics`.
public struct ClusterCounters: Sendable {
  /// Records (messages of sources, notices) this node put on the bus and read from it.
  public internal(set) var recordsOut = 0
  public internal(set) var recordsIn = 0
  /// Data messages (batches of records) and their bytes read from the bus.
  public internal(set) var batchesIn = 0
  public internal(set) var bytesIn = 0
  /// Gaps found in other nodes' streams, and the records they missed.
  public internal(set) var gaps = 0
  public internal(set) var missedRecords = 0
  /// Bus messages that were not well-formed messages of a node, by why.
  public internal(set) var malformed: [String: Int] = [:]
  /// Nodes declared dead (silent past the timeout).
  public internal(set) var nodesLost = 0
}

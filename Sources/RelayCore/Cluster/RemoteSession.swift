/// What this node knows of a session from other nodes: their sources, and where each node's
/// stream of records for the session stands.
final class RemoteSession {
  let name: String
  var sources: [String: RemoteSource] = [:]
  /// Per node: its stream for this session and the number of the record expected next.
  var streams: [String: (stream: UInt64, next: UInt64)] = [:]

  init(name: String) { self.name = name }

  /// Sources observers see (not held for a resume), in order of arrival.
  var listed: [RemoteSource] {
    sources.values.filter { $0.heldUntil == nil }.sorted { $0.order < $1.order }
  }

  /// Every source, listed or held, in order of arrival: `sources` is a dictionary, whose order
  /// changes from one process to the next, and what goes over them all (a node lost or gone,
  /// the end of a sync round) must cancel and say `left` in the same order for the same events.
  var sourcesInArrivalOrder: [RemoteSource] { sources.values.sorted { $0.order < $1.order } }
}

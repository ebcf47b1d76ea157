#if canImport(Glibc)
  import Glibc
#endif

/// How many connections this process's descriptors allow. Every connection is a descriptor,
/// and a process may open as many as its soft limit, which many systems set at 1,024 though
/// the hard limit allows far more: the server raises the soft limit to the hard one at start
/// (as nginx's `worker_rlimit_nofile` and most servers do), before lws sizes its descriptor
/// table from it, and caps `--max-connections` at what is left once the descriptors it needs
/// for other things are kept aside. Beyond the cap an upgrade is answered with HTTP 503, as
/// beyond `--max-connections`; a client that would take the very last descriptor never gets
/// it, so a descriptor is always there for the answer.
struct DescriptorBudget: Sendable, Equatable {
  /// The soft limit once raised (or as it was, when it could not be).
  let limit: Int
  /// The soft limit before: differs from `limit` when it was raised.
  let previousLimit: Int
  /// WebSocket connections these descriptors allow.
  let connections: Int
  /// A connection accepted on a descriptor this high or higher is answered 503 at once (see
  /// `LWSDriver.refusesForDescriptors`): half the reserve is kept from connections that never
  /// upgrade, the other half for the rest.
  var ceiling: Int { limit - Self.reserve(limit: limit) / 2 }

  /// Descriptors kept for what is not a WebSocket connection: plain HTTP requests (pages,
  /// `/healthz`, `/metrics`) and upgrades still being answered, the cluster's Redis links,
  /// TUIO sockets, lws' own (its cancel pipe), files read on reload. An eighth of the limit,
  /// from 16 to 64: a server limited to a few hundred descriptors keeps most for connections.
  static func reserve(limit: Int) -> Int { max(16, min(64, limit / 8)) }

  /// The connections `limit` descriptors allow with `open` already taken. A source that is
  /// recorded (`--record-dir`) holds its recording's file as well: with recording on, each
  /// connection is counted as two.
  static func connections(limit: Int, open: Int, recording: Bool) -> Int {
    let free = max(0, limit - open - reserve(limit: limit))
    return max(1, recording ? free / 2 : free)
  }

  /// Raises the soft limit to the hard one (to the kernel's `nr_open` when the hard limit is
  /// unlimited, which `setrlimit` refuses for descriptors), then counts what that allows.
  static func claim(recording: Bool) -> DescriptorBudget {
    var r = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) == 0 else {
      return DescriptorBudget(
        limit: 1024, previousLimit: 1024, connections: connections(limit: 1024, open: 16, recording: recording))
    }
    let before = r.rlim_cur
    if r.rlim_cur != r.rlim_max {
      var raised = r
      raised.rlim_cur = r.rlim_max == rlim_t.max ? rlim_t(kernelMaximum()) : r.rlim_max
      if raised.rlim_cur > before, setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { r = raised }
    }
    let limit = r.rlim_cur == rlim_t.max ? Int.max / 2 : Int(r.rlim_cur)
    let previous = before == rlim_t.max ? Int.max / 2 : Int(before)
    let open = Int(ProcessMetrics.openDescriptors() ?? 16)
    return DescriptorBudget(
      limit: limit, previousLimit: previous, connections: connections(limit: limit, open: open, recording: recording))
  }

  /// `/proc/sys/fs/nr_open`: the most descriptors a process may have; 1,048,576 if unread.
  private static func kernelMaximum() -> Int {
    guard let bytes = try? FileContents.bytes(atPath: "/proc/sys/fs/nr_open"),
      let n = Int(String(decoding: bytes, as: UTF8.self).filter(\.isNumber))
    else { return 1_048_576 }
    return n
  }
}

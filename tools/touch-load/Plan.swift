import TouchProtocol

/// Where frames come from.
enum TraceSource: Sendable {
  case generated(Scenario)
  case recording(TraceLoader.Recording)

  var name: String {
    switch self {
    case .generated(let s): return s.rawValue
    case .recording(let r): return "replay(\(r.files.count) files, \(r.frameCount) frames)"
    }
  }
}

/// A run, fully resolved from the command line.
struct Plan: Sendable {
  var baseURL: String
  var sources: Int
  var rate: Double
  var duration: Double
  var rampUp: Double
  var warmup: Double
  var drain: Double
  var sessions: Int
  var observersPerSession: Int
  var raw: Bool
  var observerQuery: String?
  var sessionPrefix: String
  var trace: TraceSource
  var sendIdle: Bool
  /// Samples per message (`frames` when more than 1), at the same sample rate.
  var samplesPerMessage: Int = 1
  var device: Device
  var seed: UInt64
  var threads: Int
  /// Seconds between two sends of the due frames on each event loop.
  var tick: Double
  /// Seconds of touch-load's own send lag p99 above which the report warns.
  var maxSendLag: Double
  var connectConcurrency: Int
  var connectTimeout: Double
  var subprotocol: Bool
  var progressInterval: Double

  var periodNanos: UInt64 { UInt64((1_000_000_000 / rate).rounded()) }

  func session(_ i: Int) -> String { "\(sessionPrefix)-\(i)" }

  func sourceURL(session: Int) -> String { "\(baseURL)/v1/source/\(self.session(session))" }

  func observerURL(session: Int) -> String {
    var query: [String] = []
    if raw { query.append("raw=1") }
    if let observerQuery, !observerQuery.isEmpty { query.append(observerQuery) }
    let q = query.isEmpty ? "" : "?" + query.joined(separator: "&")
    return "\(baseURL)/v1/observe/\(self.session(session))\(q)"
  }
}

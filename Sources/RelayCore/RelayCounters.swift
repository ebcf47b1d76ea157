import TouchProtocol

/// What the core counts for `/metrics`: plain integers bumped on the per-frame path (an add,
/// not an atomic), handed to the metrics library by the driver when scraped.
public struct RelayCounters: Sendable {
  public internal(set) var framesIn = 0
  public internal(set) var messagesIn = 0
  public internal(set) var bytesIn = 0
  /// Messages (and their bytes) handed to the driver to send.
  public internal(set) var messagesOut = 0
  public internal(set) var bytesOut = 0
  public internal(set) var gestureEvents = 0
  /// Messages dropped from observers' queues, and from sources' (their unread errors).
  public internal(set) var droppedForObservers = 0
  public internal(set) var droppedForSources = 0
  /// Times a flooding peer's reading was paused.
  public internal(set) var readPauses = 0
  /// Errors sent, by code; closes, by the code that ended the connection ("none": no code).
  public internal(set) var errors: [String: Int] = [:]
  public internal(set) var closes: [String: Int] = [:]

  /// The engine is timed for one frame in this many (see `RelayCore.engineTiming`).
  public static let engineTimeSampling = 16

  mutating func error(_ code: String) { errors[code, default: 0] += 1 }

  mutating func close(_ code: UInt16?) { closes[Self.closeLabel(code), default: 0] += 1 }

  /// The label a close is counted under: RFC 6455's own codes (1000-1015) and the server's
  /// (`CloseCode`) as themselves, "none" for no close frame, and "other" for the rest, which a
  /// peer may pick freely (3000-4999): each its own series, a client could make thousands.
  static func closeLabel(_ code: UInt16?) -> String {
    guard let code else { return "none" }
    if (1000...1015).contains(code) || CloseCode(rawValue: code) != nil { return String(code) }
    return "other"
  }
}

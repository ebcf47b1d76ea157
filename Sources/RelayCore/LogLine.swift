import Logging

/// A line for the driver's logger: the core decides what is worth saying, the driver says it.
public struct LogLine: Sendable {
  public let level: Logger.Level
  public let message: String
  public let metadata: Logger.Metadata
}

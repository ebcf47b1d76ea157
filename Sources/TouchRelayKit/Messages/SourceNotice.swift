import TouchProtocol

/// A `source` message: a source joined, left, came back within the resume window, or said
/// hello again.
public struct SourceNotice: Sendable, Equatable {
  public enum Event: String, Sendable, CaseIterable {
    case joined, left, rejoined, updated
  }

  public var event: Event
  public var info: SourceInfo

  public init(event: Event, info: SourceInfo) {
    self.event = event
    self.info = info
  }

  public var source: String { info.id }
}

/// How long to wait before each reconnect attempt: `first`, doubling up to `longest`.
public struct ReconnectDelay: Sendable, Equatable {
  public var first: Duration
  public var longest: Duration

  public init(first: Duration = .milliseconds(100), longest: Duration = .seconds(2)) {
    self.first = first
    self.longest = longest
  }

  /// The delay before attempt `n` (0 first).
  public func delay(attempt n: Int) -> Duration {
    var d = first
    for _ in 0..<min(n, 30) {
      d = d * 2
      if d >= longest { return longest }
    }
    return min(d, longest)
  }
}

import TouchProtocol

/// Every finger down at one moment: what a source sends. `t` is the device's monotonic clock
/// in milliseconds (UIKit: `UITouch.timestamp * 1000`; the web: `PointerEvent.timeStamp`).
public struct Sample: Sendable, Equatable {
  public var t: Double
  public var touches: [TouchPoint]

  public init(t: Double, touches: [TouchPoint]) {
    self.t = t
    self.touches = touches
  }
}

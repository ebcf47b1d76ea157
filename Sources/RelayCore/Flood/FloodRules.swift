/// Every threshold of the rate and flood rules, in one place. A peer is judged in fixed windows
/// of server time (`WindowCount`):
/// - Frames per source (`Limits.maxFramesPerSecond`) and controls per connection
///   (`Limits.maxControlsPerSecond`) pass a token bucket (`RateLimiter`) holding one second's
///   worth; what it refuses is dropped and reported as `rate_limited` (`RateGate`).
/// - A peer refused more times within one window than its limit allows in a whole second sends
///   over about `floodFactor` times its rate: its reading is paused until a token is there
///   again, so what it is allowed comes one per token, not in bursts.
/// - A peer sent more than `maxErrorsPerWindow` errors within one window is not read for the
///   rest of the window.
public enum FloodRules {
  /// The window the flood tests count in, and the least time between two `rate_limited`
  /// reports among refusals (ms).
  public static let windowMs = 100.0
  /// Refusals within one window past which a peer floods: its limit per second, so a flood is
  /// a peer sending over (1 s / window + 1) = about 11 times its rate.
  public static let floodFactor = 1000.0 / windowMs + 1
  /// Errors a peer may be sent within one window (1,000 a second) before it is not read for the
  /// rest of it. No client that follows the protocol comes near (a source with a finger too
  /// many at 60 Hz gets 60 a second); a peer sending garbage as fast as its socket takes it
  /// would otherwise cost a decode and an error message each.
  public static let maxErrorsPerWindow = 100
}

/// A stopwatch the driver may lend the core for the engine-time metric: the core calls `start`
/// before one sampled frame's engine work and `stop` after it. Nothing the core decides depends
/// on it, so the core stays deterministic with or without it.
public protocol EngineTiming: AnyObject {
  func start() -> Int64
  func stop(started: Int64)
}

/// The list buffers a frame is sorted into (see `FramePlan`), lent to an engine for one
/// `SourceEngine.process(_:scratch:)` call and empty again after it, so which scratch a call
/// gets never changes its output. A server running many engines on one thread lends the same
/// scratch to all of them: its buffers stay in the cache, where lists kept by each engine
/// were cold on every frame, a cache miss apiece.
public struct FrameScratch: Sendable {
  var plan = FramePlan()

  public init() {}
}

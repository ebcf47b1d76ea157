import GestureEngine
import TouchProtocol

/// What reading a frame reuses from one frame to the next: the one `Frame` every source's
/// compact frames are read into (its touch array allocated once, not per frame:
/// `MessageDecoder.compactFrame(_:into:)`), and the `FrameScratch` lent to every source's
/// engine in turn, so its lists stay in the cache.
struct FrameIntake {
  var frame = Frame(seq: 0, t: 0, touches: [])
  var scratch = FrameScratch()
}

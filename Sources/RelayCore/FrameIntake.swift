import GestureEngine
import TouchProtocol

/// What reading a message needs, kept from one message to the next: the decoder, the one
/// `Frame` every source's compact frames are read into (its touch array allocated once, not
/// per frame: `MessageDecoder.compactFrame(_:into:)`), and the `FrameScratch` lent to every
/// source's engine in turn, so its lists stay in the cache.
struct FrameIntake {
  let decoder: MessageDecoder
  var frame = Frame(seq: 0, t: 0, touches: [])
  var scratch = FrameScratch()

  init(limits: Limits) {
    decoder = MessageDecoder(limits: limits)
  }
}

import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// How peers end: what a peer sent that closes it at once, and the shutdown drain.
@Suite struct ClosingTests {
  @Test func binaryAndOversizedMessagesCloseAtOnceAndStopReading() throws {
    let h = CoreHarness { $0.limits.maxMessageBytes = 64 }
    let (a, _) = try h.source("s", at: 0)
    let (b, _) = try h.source("s", address: "10.9.9.9", at: 0)
    _ = h.takeActions()
    h.core.refuse(a.id, .binary, at: 1)
    h.core.refuse(b.id, .tooBig, at: 1)
    #expect(h.decidedClose(a)?.code == .unsupportedData)
    #expect(h.decidedClose(b)?.code == .messageTooBig)
    #expect(h.decidedClose(b)?.reason == "message larger than 64 bytes")
    let actions = h.takeActions()
    #expect(actions.filter(\.isPause).map(\.peerID) == [a.id, b.id])
    #expect(a.reading == .stopped)
    // Nothing more is taken from it.
    h.send(h.frame(1, t: 1, []), from: a, at: 2)
    #expect(h.take(a).isEmpty)
  }

  @Test func aCloseFrameTheRFCDoesNotAllowIsAnsweredWithTheServersOwn() throws {
    let h = CoreHarness()
    /// The server's answer to a close frame: nil when it is echoed.
    func reply(_ bytes: [UInt8]) throws -> CloseCode? {
      let (peer, _) = try h.observer("s")
      return h.sendClose(bytes, from: peer)?.code
    }
    #expect(try reply([]) == nil)
    #expect(try reply([0x03, 0xE8]) == nil)
    #expect(try reply([0x13, 0x87, 0x6F, 0x6B]) == nil)
    #expect(try reply([0x13, 0x88]) == .protocolError)
    #expect(try reply([0x03]) == .protocolError)
    #expect(try reply([0x03, 0xE8, 0xC3, 0x28]) == .invalidPayload)
    h.finish()
  }

  @Test func aSourceWhoseCloseFrameIsRefusedHasNotSaidGoodbye() throws {
    // Only a valid 1000 is a clean goodbye; a refused close keeps the source for its window.
    let h = CoreHarness()
    let (obs, _) = try h.observer("s", ObserverFilter(raw: false))
    let (src, _) = try h.source("s", at: 0)
    _ = h.take(obs)
    #expect(h.sendClose([0x03, 0xE8, 0xFF], from: src)?.code == .invalidPayload)
    h.core.closed(src.id, at: 1)
    #expect(h.take(obs).isEmpty)
    #expect(h.core.nextDue != nil)
    h.finish()
  }

  @Test func textThatIsNotUTF8ClosesWith1007() throws {
    let h = CoreHarness()
    let (src, _) = try h.source("s", at: 0)
    h.core.refuse(src.id, .invalidText, at: 1)
    #expect(h.decidedClose(src)?.code == .invalidPayload)
  }

  @Test func shutdownDrainsEveryQueueThenClosesWithGoingAway() throws {
    let h = CoreHarness { $0.drainTimeout = 2 }
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s", at: 0)
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: src, at: 10)
    h.core.requestShutdown(at: 20)
    #expect(h.core.stopping)
    // What was queued still goes out, then the close.
    #expect(h.take(obs).map(\.type) == ["source", "touches"])
    #expect(h.decidedClose(obs)?.code == .goingAway)
    h.core.closed(obs.id, at: 30)
    #expect(!h.takeActions().contains { $0.isFinished })
    h.core.closed(src.id, at: 40)
    #expect(h.takeActions().contains { $0.isFinished })
    #expect(h.core.finished)
    h.finish()
  }

  @Test func peersStillOpenAtTheDrainDeadlineAreCut() throws {
    let h = CoreHarness { $0.drainTimeout = 1 }
    let (obs, _) = try h.observer("s")
    h.core.requestShutdown(at: 0)
    _ = h.takeActions()
    #expect(h.core.nextDue == 1000)
    h.tick(at: 999)
    #expect(!h.core.finished)
    h.tick(at: 1000)
    let actions = h.takeActions()
    #expect(actions.contains { if case .kill(let p) = $0 { return p == obs.id } else { return false } })
    #expect(actions.contains { $0.isFinished })
    #expect(actions.contains { $0.logLine?.level == .warning })
  }

  @Test func aServerWithNoPeersFinishesAtOnce() {
    let h = CoreHarness()
    h.core.requestShutdown(at: 0)
    #expect(h.takeActions().contains { $0.isFinished })
    h.finish()
  }

  @Test func aRecordingSeesEveryInputOfASource() throws {
    let h = CoreHarness { $0.record = true }
    let (src, id) = try h.source("s", at: 0)
    h.send(h.frame(1, t: 1000, [(1, "began", 10, 10)]), from: src, at: 10)
    h.send(h.frame(2, t: 1050, [(1, "ended", 10, 10)]), from: src, at: 60)
    h.tick(at: 400)
    h.core.closed(src.id, at: 500)
    var kinds: [String] = []
    for action in h.takeActions() {
      guard case .record(let p, let entry) = action else { continue }
      #expect(p == src.id)
      switch entry {
      case .opened: kinds.append("opened")
      case .joined(let s):
        #expect(s == id)
        kinds.append("joined")
      case .message: kinds.append("message")
      case .timer(let deadline, _):
        #expect(deadline == 1350)
        kinds.append("timer")
      case .close: kinds.append("close")
      }
    }
    #expect(kinds == ["opened", "message", "joined", "message", "message", "timer", "close"])
    h.finish()
  }
}

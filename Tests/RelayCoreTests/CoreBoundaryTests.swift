import ConformanceSupport
import RelayCore
import Testing
import TouchProtocol

/// The one boundary between the core and its drivers: everything the driver must do comes out
/// as actions (and the pulled writes), every input is an event.
@Suite struct CoreBoundaryTests {
  /// The bus heartbeat is an event like any other: its notice is the first action it asks for,
  /// then what the dead nodes cost (here, B's subscription to A).
  @Test func theBusHeartbeatComesOutAsAnAction() throws {
    let nodes = TwoNodes()
    nodes.connect(at: 0)
    _ = nodes.b.takeActions()
    nodes.b.core.busHeartbeat(at: 10_000)
    let actions = nodes.b.takeDriverActions()
    #expect(actions.first == .busNotice("heartbeat B"), "\(actions)")
    #expect(actions.dropFirst() == [.busUnsubscribe("A")])
    _ = nodes.b.takeLogMessages()
    nodes.b.finish()
  }

  @Test func aRelayThatIsNoNodeHasNoHeartbeatToPublish() {
    let h = CoreHarness()
    h.core.busHeartbeat(at: 1000)
    #expect(h.takeDriverActions().isEmpty)
    h.finish()
  }

  /// The one pulled write: messages while there are any, `more` when anything (a message or
  /// the close) follows, then the close itself, which stays the answer until `closed`.
  @Test func aPeersWritesAreMessagesThenItsClose() throws {
    let h = CoreHarness { $0.drainTimeout = 2 }
    let (obs, _) = try h.observer("s")
    let (src, _) = try h.source("s")
    _ = h.take(obs)
    h.send(h.frame(1, t: 10, [(1, "began", 100, 200)]), from: src, at: 10)
    h.core.requestShutdown(at: 20)
    guard case .message(let touches, let more) = h.core.nextWrite(for: obs.id) else {
      Issue.record("no message first")
      return
    }
    #expect(touches.text.contains("\"touches\""))
    #expect(more, "the close follows the last message")
    var next = h.core.nextWrite(for: obs.id)
    while case .message = next { next = h.core.nextWrite(for: obs.id) }
    guard case .close(let code, let reason) = next else {
      Issue.record("no close after the messages: \(next)")
      return
    }
    #expect(code == .goingAway)
    #expect(!reason.isEmpty)
    guard case .close = h.core.nextWrite(for: obs.id) else {
      Issue.record("the close is not given again")
      return
    }
    _ = h.takeClose(obs)
    h.core.closed(obs.id, at: 30)
    #expect({ if case .nothing = h.core.nextWrite(for: obs.id) { true } else { false } }())
    _ = h.take(src)
    _ = h.takeClose(src)
    h.core.closed(src.id, at: 30)
    _ = h.takeActions()
    h.finish()
  }

  /// A peer whose close is decided is no longer listened to: what it sends is not read.
  @Test func aPeerBeingClosedIsNotRead() throws {
    let h = CoreHarness { $0.limits.maxMessageBytes = 64 }
    let (src, _) = try h.source("s")
    let before = src.messagesIn
    h.core.refuse(src.id, .binary, at: 5)
    h.send(h.frame(1, t: 10, [(1, "began", 100, 200)]), from: src, at: 10)
    #expect(src.messagesIn == before)
    #expect(h.takeClose(src)?.code == 1003)
    h.core.closed(src.id, at: 20)
    _ = h.takeActions()
    h.finish()
  }

  /// The driver names peers by id. An id kept past `closed` names no one, even once its slot
  /// holds a newer peer: what the driver says of it reaches no one else.
  @Test func aClosedPeersIdNamesNoOneEvenWhenItsSlotIsReused() throws {
    let h = CoreHarness()
    let (obs, _) = try h.observer("s")
    let (old, _) = try h.source("s")
    let oldID = old.id
    h.core.closed(oldID, at: 5)
    _ = h.take(obs)
    let (new, newSourceID) = try h.source("s", at: 6)
    _ = h.take(obs)
    #expect(new.id.slot == oldID.slot, "the freed slot is taken again")
    #expect(new.id != oldID)
    #expect(h.core.peer(oldID) == nil)
    // A frame, a refusal, a close frame and a close for the old id: nothing happens.
    Array(h.frame(1, t: 10, [(1, "began", 1, 1)]).utf8).withUnsafeBytes { h.core.receive($0, from: oldID, at: 10) }
    h.core.refuse(oldID, .binary, at: 10)
    h.core.peerSentClose(oldID, code: 1000)
    h.core.closed(oldID, at: 10)
    #expect({ if case .nothing = h.core.nextWrite(for: oldID) { true } else { false } }())
    #expect(new.isOpen && new.messagesIn == 1)
    #expect(h.take(obs).isEmpty, "the observer hears nothing of the old id")
    h.send(h.frame(1, t: 10, [(1, "began", 1, 1)]), from: new, at: 11)
    #expect(h.take(obs).first?["source"]?.string == newSourceID)
    _ = h.takeActions()
    h.finish()
  }
}

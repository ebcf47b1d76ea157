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
}

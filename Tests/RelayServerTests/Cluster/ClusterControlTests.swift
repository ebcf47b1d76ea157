import Foundation
import Testing
import TouchProtocol
import TouchRelayClient

/// Controls across nodes (protocol/README.md, section 7 "Controls") on a real `redis-server`:
/// observers on every node drive the scene of a source on one of them, naming it or not, one
/// control after another, and each refused control's `error` reaches the observer that sent
/// it and no other. Serialized: each test runs its own Redis and its nodes.
@Suite(.serialized) struct ClusterControlTests {
  /// What a step expects: every observer gets a `scene` with this `recognizeAny`, or only the
  /// sender gets an `error` with this code.
  enum Outcome {
    case scene(Bool)
    case error(String)
  }

  /// A named observer and everything it received.
  final class Watcher {
    let name: String
    let ws: WebSocketConnection
    var got: [JSONValue] = []
    init(_ name: String, _ ws: WebSocketConnection) {
      self.name = name
      self.ws = ws
    }

    /// Messages until one of `type` (returned), all of them kept; nil (an issue) if none
    /// comes in time.
    func next(_ type: String, step: Int) async throws -> JSONValue? {
      let deadline = ContinuousClock.now + TestTime.seconds(5)
      var seen: [JSONValue] = []
      defer { got += seen }
      while ContinuousClock.now < deadline {
        let message: Received
        do {
          message = try await ws.next(timeout: deadline - ContinuousClock.now)
        } catch WebSocketClientError.timeout {
          break
        }
        guard case .text(let text) = message else { continue }
        let value = try JSONValue.parse(text)
        seen.append(value)
        if value.type == type { return value }
      }
      Issue.record("step \(step): \(name) got no \(type): \(seen)")
      return nil
    }
  }

  /// Runs `steps` (who sends what, and what it must come to) against `watchers`.
  private func run(_ steps: [(Watcher, String, Outcome)], _ watchers: [Watcher], source id: String) async throws {
    var errorsFor: [String: Int] = [:]
    for (k, (sender, text, outcome)) in steps.enumerated() {
      try await sender.ws.send(text: text)
      switch outcome {
      case .scene(let on):
        for w in watchers {
          let scene = try await w.next("scene", step: k)
          #expect(scene?["source"]?.stringValue == id, "step \(k): \(w.name): \(scene.map { "\($0)" } ?? "-")")
          #expect(
            scene?["state"]?["recognizeAny"]?.boolValue == on,
            "step \(k) (\(text) from \(sender.name)): \(w.name) got \(scene.map { "\($0)" } ?? "-")")
        }
      case .error(let code):
        errorsFor[sender.name, default: 0] += 1
        let error = try await sender.next("error", step: k)
        #expect(
          error?["code"]?.stringValue == code,
          "step \(k) (\(text) from \(sender.name)): \(error.map { "\($0)" } ?? "-")")
      }
    }
    // Whatever is still on its way to anyone.
    for w in watchers { w.got += try await w.ws.jsonFor(.milliseconds(300)) }
    for w in watchers {
      let errors = w.got.filter { $0.type == "error" }
      #expect(errors.count == errorsFor[w.name, default: 0], "\(w.name) got errors of others: \(errors)")
      #expect(!w.got.contains { $0.type == "dropped" }, "\(w.name): \(w.got)")
      let scenes = w.got.filter { $0.type == "scene" }.count
      let expected = steps.filter { if case .scene = $0.2 { true } else { false } }.count
      #expect(scenes == expected, "\(w.name) got \(scenes) scenes for \(expected) controls that changed one")
    }
  }

  @Test func controlsFromObserversOnEveryNodeWithAndWithoutSourceAllWork() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B", "C"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (phone, id) = try await nodes[0].source("ctl", hello: ClusterTests.flatcube)
    let a = Watcher("A", try await nodes[0].observer("ctl", seeing: id).0)
    let b1 = Watcher("B1", try await nodes[1].observer("ctl", seeing: id).0)
    let b2 = Watcher("B2", try await nodes[1].observer("ctl", seeing: id).0)
    let c = Watcher("C", try await nodes[2].observer("ctl", seeing: id).0)
    func toggle(_ on: Bool, named: Bool) -> String {
      named
        ? #"{"type":"control","source":"\#(id)","recognizeAny":\#(on)}"# : #"{"type":"control","recognizeAny":\#(on)}"#
    }
    func spin(named: Bool) -> String {
      named ? #"{"type":"control","source":"\#(id)","action":"spin"}"# : #"{"type":"control","action":"spin"}"#
    }
    try await run(
      [
        (b1, toggle(true, named: false), .scene(true)),
        (c, toggle(false, named: true), .scene(false)),
        (b2, toggle(true, named: false), .scene(true)),
        (b1, spin(named: false), .error("unknown_action")),
        (c, spin(named: true), .error("unknown_action")),
        (b1, toggle(false, named: false), .scene(false)),
        (a, toggle(true, named: false), .scene(true)),
        (b2, toggle(false, named: true), .scene(false)),
        (c, #"{"type":"control","source":"Z.s9","action":"reset"}"#, .error("unknown_source")),
        (b2, spin(named: false), .error("unknown_action")),
        (c, toggle(true, named: false), .scene(true)),
        (b1, toggle(false, named: true), .scene(false)),
      ], [a, b1, b2, c], source: id)
    for ws in [phone, a.ws, b1.ws, b2.ws, c.ws] { await ws.close() }
  }

  /// With a second source in the session a control must name one; one for a source without a
  /// scene is refused by that source's node, and the refusal crosses back.
  @Test func aSecondSourceMakesAnUnnamedControlUnknownSourceAndASceneLessOneIsRefusedThere() async throws {
    let redis = try await TestRedis()
    defer { withExtendedLifetime(redis) {} }
    let nodes = try await startCluster(["A", "B"], redis: redis)
    defer { withExtendedLifetime(nodes) {} }
    let (phone, id) = try await nodes[0].source("two", hello: ClusterTests.flatcube)
    let (plain, plainID) = try await nodes[0].source("two", hello: ClusterTests.hello)
    let obs = Watcher("B", try await nodes[1].observer("two", seeing: plainID).0)
    try await run(
      [
        (obs, #"{"type":"control","recognizeAny":true}"#, .error("unknown_source")),
        (obs, #"{"type":"control","source":"\#(plainID)","action":"reset"}"#, .error("unknown_scene")),
        (obs, #"{"type":"control","source":"\#(id)","recognizeAny":true}"#, .scene(true)),
        (obs, #"{"type":"control","source":"\#(plainID)","action":"reset"}"#, .error("unknown_scene")),
        (obs, #"{"type":"control","source":"\#(id)","recognizeAny":false}"#, .scene(false)),
      ], [obs], source: id)
    for ws in [phone, plain, obs.ws] { await ws.close() }
  }
}

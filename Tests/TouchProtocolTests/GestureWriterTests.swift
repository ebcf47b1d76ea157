import ConformanceSupport
import Testing

@testable import TouchProtocol

/// `ServerMessage.write(_: GestureEvent, …)` writes its fixed-shape members through
/// `JSONWriter.members(reserving:_:)`, a cursor with no per-token checks. Here it must agree,
/// byte for byte, with the same message written token by token through the writer's ordinary
/// calls, for events of every shape and values of every size, including ones that take the
/// most room (so a reservation too small would stop the test at its precondition).
@Suite struct GestureWriterTests {
  /// The message the plain way: every name, bracket and value through `JSONWriter`'s own calls.
  func plain(_ e: GestureEvent, origin: Origin) -> [UInt8] {
    var w = JSONWriter(headroom: 16)
    w.beginObject()
    w.key("type")
    w.string(literal: "gesture")
    w.key("source")
    w.string(origin.source)
    w.key("seq")
    w.int(origin.seq)
    w.key("t")
    w.number(origin.t)
    w.key("rt")
    w.number(origin.rt)
    w.key("id")
    w.int(Int64(e.id))
    w.key("gesture")
    w.string(e.gesture.rawValue)
    w.key("state")
    w.string(e.state.rawValue)
    w.key("touches")
    w.int(Int64(e.touches))
    w.key("x")
    w.number(e.x)
    w.key("y")
    w.number(e.y)
    w.key("regions")
    regions(e.regions, &w)
    if let taps = e.taps {
      w.key("taps")
      w.int(Int64(taps))
    }
    for (name, v) in [("translation", e.translation), ("velocity", e.velocity)] {
      guard let v else { continue }
      w.key(escaping: name)
      w.beginObject()
      w.key("x")
      w.number(v.x)
      w.key("y")
      w.number(v.y)
      w.endObject()
    }
    for (name, v) in [("scale", e.scale), ("rotation", e.rotation), ("velocity", e.rate)] {
      guard let v else { continue }
      w.key(escaping: name)
      w.number(v)
    }
    if let d = e.direction {
      w.key("direction")
      w.string(d.rawValue)
    }
    if let fingers = e.fingers {
      w.key("fingers")
      w.beginArray()
      for f in fingers {
        w.beginObject()
        w.key("id")
        w.int(f.id)
        w.key("x")
        w.number(f.x)
        w.key("y")
        w.number(f.y)
        w.key("regions")
        regions(f.regions, &w)
        w.endObject()
      }
      w.endArray()
    }
    w.endObject()
    return w.bytes
  }

  func regions(_ names: [String], _ w: inout JSONWriter) {
    w.beginArray()
    for r in names { w.string(r) }
    w.endArray()
  }

  /// Numbers of every kind `number` writes differently, the widest among them.
  static let numbers: [Double] = [
    0, -0.0, 1, -7, 240.5, -0.000_001, 812.254_999, 123_456.789, 8_999_999_999_999.999, -4_503_599_627_370_495.5,
    1e15, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNormalMagnitude, .nan, .infinity,
  ]

  func number(_ rng: inout SeededLCG) -> Double {
    rng.below(3) == 0
      ? Self.numbers[rng.below(Self.numbers.count)] : (rng.unit() - 0.5) * 2000
  }

  func maybe<T>(_ rng: inout SeededLCG, _ make: (inout SeededLCG) -> T) -> T? {
    rng.below(2) == 0 ? nil : make(&rng)
  }

  func names(_ rng: inout SeededLCG) -> [String] {
    let pool = ["red", "", "a \"quoted\" one", "ünï", "tab\there"]
    return rng.below(2) == 0 ? [] : (0..<(1 + rng.below(3))).map { _ in pool[rng.below(pool.count)] }
  }

  @Test func theCursorWritesWhatTheWriterWould() {
    var rng = SeededLCG(state: 23)
    let ints = [0, 1, 99, 12_345, Int.max, Int.min, -1]
    for k in 0..<5_000 {
      let e = GestureEvent(
        id: ints[rng.below(ints.count)], gesture: GestureKind.allCases[rng.below(GestureKind.allCases.count)],
        state: GestureState.allCases[rng.below(GestureState.allCases.count)], t: number(&rng), x: number(&rng),
        y: number(&rng), touches: ints[rng.below(ints.count)], regions: names(&rng),
        taps: maybe(&rng) { ints[$0.below(ints.count)] },
        translation: maybe(&rng) { Vector(x: number(&$0), y: number(&$0)) },
        velocity: maybe(&rng) { Vector(x: number(&$0), y: number(&$0)) }, scale: maybe(&rng) { number(&$0) },
        rotation: maybe(&rng) { number(&$0) }, rate: maybe(&rng) { number(&$0) },
        direction: maybe(&rng) { SwipeDirection.allCases[$0.below(SwipeDirection.allCases.count)] },
        fingers: maybe(&rng) { r in
          (0..<r.below(6)).map { _ in
            GestureFinger(id: Int64(ints[r.below(ints.count)]), x: number(&r), y: number(&r), regions: names(&r))
          }
        })
      let origin = Origin(source: k % 2 == 0 ? "s1" : "phone \"A\"", seq: Int64(k), t: number(&rng), rt: 52_469_637.039322)
      let written = ServerMessage.gesture(e, origin: origin, headroom: 16)
      let expected = plain(e, origin: origin)
      #expect(written == expected, "\(String(decoding: written.dropFirst(16), as: UTF8.self))")
      if written != expected { return }
    }
  }
}

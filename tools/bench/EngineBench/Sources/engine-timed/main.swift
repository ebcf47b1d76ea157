import EngineTrace
import Foundation
import GestureEngine
import TouchProtocol

// The plain timed loop: the same work as the ordo-one/benchmark suite, timed with the
// monotonic clock; the median of several rounds. Prints one JSON object.
//   engine-timed [--seconds S]   (S: time budget per measurement, default 1.5)

let budget: Double = {
  let args = CommandLine.arguments
  if let i = args.firstIndex(of: "--seconds"), i + 1 < args.count, let s = Double(args[i + 1]) {
    return s
  }
  return 1.5
}()

@inline(never) func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Runs `body` in rounds for about `budget` seconds and returns the median ns per unit of
/// work; `body` returns how many units it did and a checksum (so the work is not optimized
/// away).
func measure(budget: Double, _ body: () -> (units: Int, sink: Int)) -> Double {
  var sink = 0
  for _ in 0..<3 { sink &+= body().sink }  // warm-up
  var perUnit: [Double] = []
  let end = now() + UInt64(budget * 1e9)
  repeat {
    // A round of several calls so each round lasts a few ms at least.
    let t0 = now()
    var units = 0
    repeat {
      let r = body()
      units += r.units
      sink &+= r.sink
    } while now() - t0 < 5_000_000
    if units > 0 { perUnit.append(Double(now() - t0) / Double(units)) }
  } while now() < end
  if sink == 42 { print("") }
  perUnit.sort()
  return perUnit.isEmpty ? 0 : perUnit[perUnit.count / 2]
}

/// `body` does `units` units of work each call and returns a checksum.
func measure(units: Int, budget: Double, _ body: () -> Int) -> Double {
  measure(budget: budget) { (units, body()) }
}

let trace = EngineTrace()
let engineNs = measure(units: trace.touchPoints, budget: budget) { trace.run() }
// The same engines' cost with 400 sources' state taking turns in the cache.
let interleaved = InterleavedEngines(trace: trace, count: 400)
let interleavedNs = measure(budget: budget) {
  var sink = 0
  let points = interleaved.run(frames: 50, sink: &sink)
  return (points, sink)
}
let decoder = MessageDecoder()
let bytes = SmallFrames.messages
let datas = bytes.map { Data($0) }
let scannerNs = measure(units: bytes.count, budget: budget) { SmallFrames.decodeAll(decoder, bytes) }
let jsonDecoder = JSONDecoder()
let foundationNs = measure(units: datas.count, budget: budget) { SmallFrames.decodeAllFoundation(jsonDecoder, datas) }

// Encoding what observers get: every gesture event of the trace, and the raw mirror of
// every frame, as the server encodes them (with lws headroom).
let (gestureEvents, origin): ([GestureEvent], Origin) = {
  var engine = SourceEngine(hello: trace.hello, maxFingers: 10)
  var events: [GestureEvent] = []
  for f in trace.frames { events += engine.process(f).events }
  return (events, Origin(source: "s-0123456789ab", seq: 1234, t: 5678.25, rt: 91011.125))
}()
let gestureEncodeNs = measure(units: max(gestureEvents.count, 1), budget: budget) {
  var n = 0
  for e in gestureEvents { n &+= ServerMessage.gesture(e, origin: origin, headroom: 16).count }
  return n
}
let touchesEncodeNs = measure(units: trace.frames.count, budget: budget) {
  var n = 0
  for f in trace.frames { n &+= ServerMessage.touches(f, origin: origin, headroom: 16).count }
  return n
}

// Shapes: the judgements of 16 drawings against 16 templates, less the same drawings with no
// templates (the pan they also are).
let shapeTrace = ShapeTrace()
let withShapesNs = measure(units: shapeTrace.drawings.count, budget: budget) { shapeTrace.run(shapes: true) }
let withoutShapesNs = measure(units: shapeTrace.drawings.count, budget: budget) { shapeTrace.run(shapes: false) }
let judgementNs = withShapesNs - withoutShapesNs
let recognized = shapeTrace.run(shapes: true)

let result: [String: Any] = [
  "shapeTemplates": shapeTrace.templates.count,
  "shapeDrawingsRecognizedAsTheirOwn": recognized,
  "shapeJudgementUs": (judgementNs / 100).rounded() / 10,
  "shapeComparisonUs": (judgementNs / Double(shapeTrace.templates.count) / 100).rounded() / 10,
  "gestureMessages": gestureEvents.count,
  "gestureEncodeNsPerMessage": (gestureEncodeNs * 10).rounded() / 10,
  "touchesEncodeNsPerMessage": (touchesEncodeNs * 10).rounded() / 10,
  "frames": trace.frames.count,
  "touchPoints": trace.touchPoints,
  "engineOutputs": trace.events,
  "engineNsPerTouchPoint": (engineNs * 10).rounded() / 10,
  "engineNsPerTouchPointInterleaved": (interleavedNs * 10).rounded() / 10,
  "interleavedEngines": interleaved.count,
  "decoderFrames": bytes.count,
  "messageDecoderNsPerFrame": (scannerNs * 10).rounded() / 10,
  "jsonDecoderNsPerFrame": (foundationNs * 10).rounded() / 10,
  "jsonDecoderOverMessageDecoder": (foundationNs / scannerNs * 100).rounded() / 100,
]
let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print(String(decoding: data, as: UTF8.self))

import Benchmark
import EngineTrace
import Foundation
import GestureEngine
import TouchProtocol

// One iteration = the whole mixed trace through a fresh SourceEngine (default recognizer
// set, no scene), or every small frame through a decoder once. tools/bench/run divides the
// wall-clock median by the trace's touch points (or the number of frames) for ns per unit.

let trace = EngineTrace()
let frameBytes = SmallFrames.messages
let frameDatas = frameBytes.map { Data($0) }

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .cpuTotal, .mallocCountTotal],
    warmupIterations: 3,
    maxDuration: .seconds(3),
    maxIterations: 100_000
  )

  Benchmark("engine: mixed trace (\(trace.frames.count) frames, \(trace.touchPoints) touch points)") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(trace.run())
    }
  }

  Benchmark("decoder: MessageDecoder (\(frameBytes.count) small frames)") { benchmark in
    let decoder = MessageDecoder()
    for _ in benchmark.scaledIterations {
      blackHole(SmallFrames.decodeAll(decoder, frameBytes))
    }
  }

  Benchmark("decoder: Foundation JSONDecoder (\(frameBytes.count) small frames)") { benchmark in
    let decoder = JSONDecoder()
    for _ in benchmark.scaledIterations {
      blackHole(SmallFrames.decodeAllFoundation(decoder, frameDatas))
    }
  }
}

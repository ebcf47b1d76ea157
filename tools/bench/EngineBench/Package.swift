// swift-tools-version:6.1
// Engine and decoder micro-benchmarks for tools/bench (not part of `swift test`).
//   swift package --package-path tools/bench/EngineBench benchmark      (ordo-one/benchmark)
//   swift run -c release --package-path tools/bench/EngineBench engine-timed   (plain timed loop)
import Foundation
import PackageDescription

// The root package is a path dependency, whose identity is its directory's name (the clone's).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("../../..").standardizedFileURL
let rootIdentity = root.lastPathComponent.lowercased()

let package = Package(
  name: "EngineBench",
  platforms: [.macOS(.v14)],
  dependencies: [
    .package(path: "../../.."),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    // The realistic mixed trace (taps, pans, pinches with 1-3 fingers) and the small frames,
    // shared by both runners so they measure the same work.
    .target(
      name: "EngineTrace",
      dependencies: [
        .product(name: "GestureEngine", package: rootIdentity),
        .product(name: "TouchProtocol", package: rootIdentity),
      ]
    ),
    .executableTarget(
      name: "EngineBenchmarks",
      dependencies: [
        "EngineTrace",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "GestureEngine", package: rootIdentity),
        .product(name: "TouchProtocol", package: rootIdentity),
      ],
      path: "Benchmarks/EngineBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // Fallback: the same measurements as a plain timed loop, one JSON line out.
    .executableTarget(
      name: "engine-timed",
      dependencies: [
        "EngineTrace",
        .product(name: "GestureEngine", package: rootIdentity),
        .product(name: "TouchProtocol", package: rootIdentity),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

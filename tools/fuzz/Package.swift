// swift-tools-version:6.1
// libFuzzer targets for TouchRelay, kept out of the root package so `swift build` and
// `swift test` there never build them. Build and run with `./run [seconds]` (see README.md).
import PackageDescription

let package = Package(
  name: "TouchRelayFuzz",
  dependencies: [
    .package(name: "TouchRelay", path: "../.."),
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
  ],
  targets: [
    // Declares libFuzzer's LLVMFuzzerRunDriver (the symbol comes from -sanitize=fuzzer).
    .target(name: "CFuzzerDriver"),
    .executableTarget(
      name: "fuzz-decoder",
      dependencies: [
        "CFuzzerDriver",
        .product(name: "TouchProtocol", package: "TouchRelay"),
      ]
    ),
    .executableTarget(
      name: "fuzz-engine",
      dependencies: [
        "CFuzzerDriver",
        .product(name: "TouchProtocol", package: "TouchRelay"),
        .product(name: "GestureEngine", package: "TouchRelay"),
      ]
    ),
    .executableTarget(
      name: "fuzz-osc",
      dependencies: [
        "CFuzzerDriver",
        .product(name: "OSC", package: "TouchRelay"),
        .product(name: "TUIO", package: "TouchRelay"),
      ]
    ),
    // The relay core, compiled here from the root package's own sources (symbolic links to
    // Sources/RelayCore and Sources/CPrefetch): the root package offers it in no product, and
    // cannot while its targets carry unsafe flags (function sections, exclusivity; see its
    // Package.swift). Compiled here without them, exclusivity checked at run time as in debug.
    // (Its module map names the module CPrefetch, as RelayCore imports it; the target needs a
    // name of its own, target names being unique across the package graph.)
    .systemLibrary(name: "CPrefetchForFuzzing", path: "Sources/CPrefetch"),
    .target(
      name: "RelayCoreForFuzzing",
      dependencies: [
        "CPrefetchForFuzzing",
        .product(name: "TouchProtocol", package: "TouchRelay"),
        .product(name: "GestureEngine", package: "TouchRelay"),
        .product(name: "SignedTokens", package: "TouchRelay"),
        .product(name: "OSC", package: "TouchRelay"),
        .product(name: "TUIO", package: "TouchRelay"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "fuzz-bus",
      dependencies: [
        "CFuzzerDriver", "RelayCoreForFuzzing",
        .product(name: "TouchProtocol", package: "TouchRelay"),
      ]
    ),
    .executableTarget(
      name: "fuzz-jose",
      dependencies: [
        "CFuzzerDriver",
        .product(name: "SignedTokens", package: "TouchRelay"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

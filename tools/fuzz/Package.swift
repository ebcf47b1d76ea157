// swift-tools-version:6.1
// libFuzzer targets for TouchRelay, kept out of the root package so `swift build` and
// `swift test` there never build them. Build and run with `./run [seconds]` (see README.md).
import PackageDescription

let package = Package(
  name: "TouchRelayFuzz",
  dependencies: [
    .package(name: "TouchRelay", path: "../.."),
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
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

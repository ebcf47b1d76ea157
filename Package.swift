// swift-tools-version:6.1
import PackageDescription

#if canImport(Glibc)
  import Glibc
#endif

// What every build of touch-relay needs besides Swift 6.1 (the tools version above): the
// toolchain's lld and glibc 2.36 or later, for the link flags of the touch-relay target
// (`-use-ld=lld`, `-z pack-relative-relocs`, which older loaders cannot read). Without them
// the link fails late with a linker's message; this stops at once and says what is missing.
#if os(Linux)
  func unmetRequirement(_ message: String) -> Never {
    let line = "error: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
  }

  func glibcVersion() -> (major: Int, minor: Int, text: String)? {
    var buffer = [CChar](repeating: 0, count: 64)
    guard confstr(Int32(_CS_GNU_LIBC_VERSION), &buffer, buffer.count) > 0 else { return nil }
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let numbers = text.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    guard numbers.count >= 2 else { return nil }
    return (numbers[0], numbers[1], text)
  }

  /// True unless the toolchain (the `swiftc` on PATH) has no `ld.lld` beside it and PATH has none.
  func lldIsThere() -> Bool {
    let path = (Context.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    var directories = path
    for directory in path where access("\(directory)/swiftc", X_OK) == 0 {
      guard let real = realpath("\(directory)/swiftc", nil) else { continue }
      let resolved = String(cString: real)
      free(real)
      directories.append(String(resolved[..<(resolved.lastIndex(of: "/") ?? resolved.endIndex)]))
    }
    let toolchainFound = directories.count > path.count
    return !toolchainFound || directories.contains { access("\($0)/ld.lld", X_OK) == 0 }
  }

  if let glibc = glibcVersion(), (glibc.major, glibc.minor) < (2, 36) {
    unmetRequirement(
      "touch-relay needs glibc 2.36 or later (its link packs relative relocations, -z pack-relative-relocs); "
        + "this system has \(glibc.text). Debian 12 or Ubuntu 22.10 and later have it.")
  }
  if !lldIsThere() {
    unmetRequirement(
      "touch-relay links with the Swift toolchain's lld (ld.lld), which is not beside swiftc nor on PATH: "
        + "use a swift.org toolchain for Linux, which ships it.")
  }
#endif

// Each function in a section of its own, so that lld can lay out what a frame runs, and what an
// idle server runs, together (tools/link/touch-relay.order; see the touch-relay target). Only on the server's own
// modules that no library product contains: SwiftPM refuses unsafe flags in a package another
// package depends on for the products it uses.
let functionSections: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-function-sections"])]

// Release builds of the relay's core and driver check exclusive access statically only, as
// the standard library is built: their state lives in classes (the core, peers, sessions, the
// driver), every change of it was checked at run time through a thread-local access set, and
// those checks cost about 9 % of a fan-out's instructions (ARCHITECTURE.md, "Exclusivity
// checked at compile time in release"). Debug builds, which the tests run, keep the checks.
// Also only on modules no library product contains.
let staticExclusivityInRelease: [SwiftSetting] = [
  .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]

// The sanitizer passes (tools/sanitize/run sets TOUCH_RELAY_SHARED_RUNTIME) link touch-relay
// against the shared Swift runtime: ThreadSanitizer's runtime stops every server at start-up
// with the static one (a CHECK on a `free` it did not see allocated). Every other build links it
// statically (see the touch-relay target).
let sharedRuntime = Context.environment["TOUCH_RELAY_SHARED_RUNTIME"] != nil

let package = Package(
  name: "TouchRelay",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "touch-relay", targets: ["touch-relay"]),
    .executable(name: "touch-load", targets: ["touch-load"]),
    .library(name: "TouchProtocol", targets: ["TouchProtocol"]),
    .library(name: "GestureEngine", targets: ["GestureEngine"]),
    .library(name: "SignedTokens", targets: ["SignedTokens"]),
    .library(name: "TouchRelayKit", targets: ["TouchRelayKit"]),
    .library(name: "OSC", targets: ["OSC"]),
    .library(name: "TUIO", targets: ["TUIO"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
  ],
  targets: [
    // libwebsockets from the system (Debian: libwebsockets-dev), plus a tiny shim header.
    .systemLibrary(
      name: "CLibWebSockets",
      pkgConfig: "libwebsockets",
      providers: [.apt(["libwebsockets-dev"])]
    ),
    // libqrencode from the system (Debian: libqrencode-dev): the QR code of a session's pad URL.
    .systemLibrary(
      name: "CQREncode",
      pkgConfig: "libqrencode",
      providers: [.apt(["libqrencode-dev"])]
    ),
    // Wire types, codecs and validation. Pure Swift, no I/O.
    .target(name: "TouchProtocol"),
    // Identity table, recognizers, arena, scenes. Pure Swift, no I/O, no clock.
    .target(name: "GestureEngine", dependencies: ["TouchProtocol"]),
    // Signed tokens (JWS compact, JWT claims, JWKS): parsed from bytes and verified with
    // swift-crypto, synchronously. No I/O, no clock: the time to check `exp` against is given.
    .target(
      name: "SignedTokens",
      dependencies: [
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]
    ),
    // hiredis from the system (Debian: libhiredis-dev): the cluster bus reads Redis replies with
    // its RESP reader.
    // (No pkgConfig: its flags include a define SwiftPM warns about; the headers are in
    // /usr/include/hiredis and the module map links the library.)
    .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
    // OSC 1.0 messages and bundles, read strictly and written. Pure Swift, no I/O.
    .target(name: "OSC"),
    // TUIO 1.1 and 2.0 cursors in as protocol sources and frames, TUIO 1.1 out. No I/O, no clock.
    .target(name: "TUIO", dependencies: ["OSC", "TouchProtocol"]),
    // A cache prefetch hint (header only), for the relay core's engines.
    .systemLibrary(name: "CPrefetch"),
    // The socket headers (header only), for the server's sockets outside the libwebsockets
    // driver: TUIO's UDP sockets.
    .systemLibrary(name: "CSocket"),
    // The relay's rules as a state machine: sessions, sources, observers, admission, fan-out and
    // drops, rate and flood rules, resume windows, shutdown. Events in, actions out; no I/O,
    // no clock, no threads, no libwebsockets.
    .target(
      name: "RelayCore",
      dependencies: [
        "CPrefetch", "TouchProtocol", "GestureEngine", "SignedTokens", "OSC", "TUIO",
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: functionSections + staticExclusivityInRelease
    ),
    // The server: the libwebsockets driver of the core, HTTP and pages, operations (metrics,
    // recording).
    .target(
      name: "RelayServer",
      dependencies: [
        "CLibWebSockets", "CQREncode", "CHiredis", "CSocket", "RelayCore", "TouchProtocol", "GestureEngine", "Markup", "SignedTokens",
        "OSC", "TUIO",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        "RelayWebFiles",
      ],
      swiftSettings: functionSections + staticExclusivityInRelease
    ),
    // The pad, watch and landing pages: static files, read on first use. A C target, so that no
    // Foundation `Bundle` accessor is generated (see its header).
    .target(name: "RelayWebFiles", resources: [.copy("Web")]),
    // A recording (`--record`) drawn as SVG: trails on the surface, gestures on a timeline.
    // Escaping text for HTML and XML, shared by the pages, the drawing and touch-load's report.
    .target(name: "Markup"),
    .target(name: "RecordingDrawing", dependencies: ["TouchProtocol", "Markup"], swiftSettings: functionSections),
    .executableTarget(
      name: "touch-relay",
      dependencies: [
        "RelayServer", "TouchProtocol", "GestureEngine", "RecordingDrawing", "StaticLinkSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: functionSections,
      // The Swift runtime and FoundationEssentials linked in: an idle server then maps the pages
      // it uses rather than whole shared libraries (ARCHITECTURE.md, "Memory per process").
      // The modules are compiled against the shared FoundationEssentials, which does not name
      // the two libraries its static archive needs. The linker packs the executable's relative
      // relocations (tens of thousands, all read at every start) into a few kB (RELR, which
      // glibc reads since 2.36). Swift's static link exports every symbol (`-export-dynamic`),
      // a table the loader searches for every shared library's symbols; nothing looks the
      // server's own symbols up at run time (backtraces read the file's symbol table).
      // lld (the toolchain's) lays out first the functions a frame runs, callers beside callees,
      // then those an idle server runs, from tools/link/touch-relay.order (written by
      // tools/link/order.py): scattered over the 13 MB of .text, the frame path took more cache
      // lines and pages per frame, and start-up code kept half of .text resident (the kernel
      // maps 64 kB or more around every page touched). Names no longer in the code are skipped
      // silently.
      linkerSettings: sharedRuntime ? [] : [
        .unsafeFlags([
          "-static-stdlib", "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-l_FoundationCShims",
          "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
          "-Xlinker", "--no-export-dynamic",
          "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/tools/link/touch-relay.order",
          "-Xlinker", "--no-warn-symbol-ordering",
        ])
      ]
    ),
    // What linking the Swift runtime statically into touch-relay needs from C (see mktemp.c).
    .target(name: "StaticLinkSupport"),
    // An independent WebSocket client (SwiftNIO) speaking protocol v1: used by the test
    // harness and by touch-load, never by the server.
    .target(
      name: "TouchRelayClient",
      dependencies: [
        "TouchProtocol",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]
    ),
    // The client library for apps: a source (samples, bounded buffer, resume) and an observer
    // (typed messages, reconnect), on top of TouchRelayClient's connection. Never the server's.
    .target(
      name: "TouchRelayKit",
      dependencies: [
        "TouchProtocol", "TouchRelayClient",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
      ]
    ),
    .executableTarget(
      name: "touch-load",
      dependencies: [
        "TouchProtocol", "TouchRelayClient", "Markup", "OSC", "TUIO",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "Histogram", package: "hdrhistogram-swift"),
      ],
      path: "tools/touch-load"
    ),
    // Predicted positions' error on generated hand motions (tools/bench/README.md).
    .executableTarget(
      name: "prediction-error",
      dependencies: ["ConformanceSupport"],
      path: "tools/bench/prediction-error"
    ),
    // Conformance vectors (protocol/vectors): loading and matching, shared by the engine's
    // tests and the through-the-server tests.
    .target(
      name: "ConformanceSupport",
      dependencies: ["GestureEngine", "TouchProtocol", "TouchRelayClient"],
      path: "Tests/ConformanceSupport"
    ),
    .testTarget(
      name: "SignedTokensTests",
      dependencies: [
        "SignedTokens",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
      ]
    ),
    .testTarget(name: "TUIOTests", dependencies: ["OSC", "TUIO", "TouchProtocol"]),
    .testTarget(name: "TouchProtocolTests", dependencies: ["TouchProtocol", "ConformanceSupport"]),
    .testTarget(name: "TouchRelayKitTests", dependencies: ["TouchRelayKit", "TouchProtocol", "TouchRelayClient"]),
    .testTarget(name: "GestureEngineTests", dependencies: ["GestureEngine", "TouchProtocol", "ConformanceSupport"]),
    // Reading back the HTML and SVG the tools write (well-formed XML), for their tests.
    .target(name: "MarkupReading", path: "Tests/MarkupReading"),
    .testTarget(
      name: "TouchLoadTests",
      dependencies: [
        "touch-load", "RelayServer", "TouchProtocol", "MarkupReading", .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(name: "RecordingDrawingTests", dependencies: ["RecordingDrawing", "RelayServer", "MarkupReading"]),
    .testTarget(
      name: "RelayCoreTests",
      dependencies: [
        "RelayCore", "TouchProtocol", "GestureEngine", "ConformanceSupport", "SignedTokens", "OSC",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    .testTarget(
      name: "RelayServerTests",
      dependencies: [
        "RelayServer", "RelayCore", "TouchProtocol", "GestureEngine", "TouchRelayClient", "ConformanceSupport",
        "SignedTokens", "TouchRelayKit", "OSC",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      // The hostile-input corpus is data, read by path from the tests.
      exclude: ["Hostile"]
    ),
  ],
  swiftLanguageModes: [.v6]
)

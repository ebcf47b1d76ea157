import Foundation
import Testing

/// What the `touch-relay` executable is made of (PERFORMANCE.md, "Memory per process").
@Suite struct ServerFootprintTests {
  /// The server links FoundationEssentials, never Foundation: Foundation's start-up (CoreFoundation,
  /// bundles, ICU) alone costs an idle server megabytes. A call that resolves to one of
  /// Foundation's String methods (visible wherever a dependency imports Foundation) links it all.
  // The sanitizer passes link the shared runtime (Package.swift, `sharedRuntime`).
  @Test(.disabled(if: ProcessInfo.processInfo.environment["TOUCH_RELAY_SHARED_RUNTIME"] != nil))
  func theServerLinksNoFoundation() throws {
    let nm = Process()
    nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
    nm.arguments = ["--defined-only", ShutdownTests.binary.path]
    let out = Pipe()
    nm.standardOutput = out
    try nm.run()
    let symbols = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    nm.waitUntilExit()
    #expect(nm.terminationStatus == 0)
    let lines = symbols.split(separator: "\n")
    #expect(lines.count > 1000, "nm listed \(lines.count) symbols")
    // Foundation's own symbols are mangled with its module name ("10Foundation", not
    // "20FoundationEssentials"); CoreFoundation's are C names.
    let foundation = lines.filter { $0.contains("10Foundation") || $0.hasSuffix(" CFBundleGetMainBundle") }
    #expect(foundation.isEmpty, "Foundation is linked in: \(foundation.prefix(3))")
    // And none of the shared Swift libraries is loaded either.
    let ldd = Process()
    ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
    ldd.arguments = [ShutdownTests.binary.path]
    let libs = Pipe()
    ldd.standardOutput = libs
    try ldd.run()
    let loaded = String(decoding: libs.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    ldd.waitUntilExit()
    #expect(loaded.contains("libc.so"), "ldd said: \(loaded)")
    #expect(!loaded.contains("libswiftCore"), "the Swift runtime is a shared library: \(loaded)")
    #expect(!loaded.contains("libFoundation"), "Foundation is a shared library: \(loaded)")
  }
}

import Foundation
import Testing

/// What the `touch-relay` executable is made of (PERFORMANCE.md, "Memory per process").
@Suite struct ServerFootprintTests {
  /// The server links FoundationEssentials, never Foundation: Foundation's start-up (CoreFoundation,
  /// bundles, ICU) alone costs an idle server megabytes. A call that resolves to one of
  /// Foundation's String methods (visible wherever a dependency imports Foundation) links it all.
  // The sanitizer passes link the shared runtime (Package.swift, `sharedRuntime`).
  @Test(.disabled(if: ProcessInfo.processInfo.environment["TOUCH_RELAY_SHARED_RUNTIME"] != nil))
  func theServerLinksNoFoundation() async throws {
    let (status, symbols) = try await runTool("/usr/bin/nm", ["--defined-only", ShutdownTests.binary.path])
    #expect(status == 0)
    let lines = symbols.split(separator: "\n")
    #expect(lines.count > 1000, "nm listed \(lines.count) symbols")
    // Foundation's own symbols are mangled with its module name ("10Foundation", not
    // "20FoundationEssentials"); CoreFoundation's are C names.
    let foundation = lines.filter { $0.contains("10Foundation") || $0.hasSuffix(" CFBundleGetMainBundle") }
    #expect(foundation.isEmpty, "Foundation is linked in: \(foundation.prefix(3))")
    // And none of the shared Swift libraries is loaded either.
    let (_, loaded) = try await runTool("/usr/bin/ldd", [ShutdownTests.binary.path])
    #expect(loaded.contains("libc.so"), "ldd said: \(loaded)")
    #expect(!loaded.contains("libswiftCore"), "the Swift runtime is a shared library: \(loaded)")
    #expect(!loaded.contains("libFoundation"), "Foundation is a shared library: \(loaded)")
  }
}

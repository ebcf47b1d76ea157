import Foundation
import Testing

/// The core does no I/O and reads no clock: it may import only the protocol, the engine, signed
/// tokens' verification (pure too), the logging facade (for its log lines' types) and the
/// prefetch hint, and the OSC codec and TUIO mapping (pure too: `pureTargetsImportNoIO`).
/// Foundation, Glibc,
/// Dispatch or libwebsockets in a core file would let sockets, files, clocks or threads in.
@Suite struct PurityTests {
  static let allowed: Set<String> = [
    "TouchProtocol", "GestureEngine", "SignedTokens", "Logging", "CPrefetch", "OSC", "TUIO",
  ]

  @Test func everyCoreFileImportsOnlyPureModules() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources/RelayCore")
    let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }
      .filter { $0.hasSuffix(".swift") }
    #expect(files.count > 20)
    for file in files {
      let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
      for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.contains(" import ") {
        guard line.hasPrefix("import ") || line.hasPrefix("@") else { continue }
        let module = String(line.split(separator: " ").last ?? "")
        #expect(Self.allowed.contains(module), "\(file) imports \(module)")
      }
    }
  }

  /// The OSC codec and the TUIO mapping are linked by the core and the fuzz targets: no I/O.
  @Test func pureTargetsImportNoIO() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources")
    for target in ["OSC", "TUIO"] {
      let dir = sources.appendingPathComponent(target)
      let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") }
      #expect(!files.isEmpty)
      for file in files {
        let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("import ") {
          let module = String(line.split(separator: " ").last ?? "")
          #expect(["OSC", "TouchProtocol"].contains(module), "\(target)/\(file) imports \(module)")
        }
      }
    }
  }
}

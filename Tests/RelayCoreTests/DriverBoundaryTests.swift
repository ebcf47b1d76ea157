import Foundation
import Testing

/// Only the libwebsockets driver (`Sources/RelayServer/LibWebSockets/`) calls libwebsockets
/// (ARCHITECTURE.md, "Modules"): the cluster bus and TUIO reach it through `RawSocket` and
/// `RelayTimer`, so a change of libwebsockets, of its version or of how the loop runs touches
/// that folder alone. A file elsewhere that imports its module or names one of its functions,
/// types or constants (`lws_…`, `LWS_…`, the shim's `tr_lws_…`) fails here; comments may name them.
@Suite struct DriverBoundaryTests {
  static let driverFolders = ["RelayServer/LibWebSockets/", "CLibWebSockets/"]

  /// Each Swift file under `Sources/` outside the driver, with its code (comments removed).
  static func filesOutsideTheDriver() throws -> [(path: String, code: [Substring])] {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources")
    let all = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
    var files: [(path: String, code: [Substring])] = []
    for path in all where path.hasSuffix(".swift") && !driverFolders.contains(where: { path.hasPrefix($0) }) {
      let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
      let code: [Substring] = text.split(separator: "\n").map { (line: Substring) -> Substring in
        guard let comment = line.firstRange(of: "//") else { return line }
        return line[..<comment.lowerBound]
      }
      files.append((path, code))
    }
    return files
  }

  @Test func onlyTheDriverImportsLibWebSockets() throws {
    let files = try Self.filesOutsideTheDriver()
    #expect(files.contains { $0.path.hasPrefix("RelayServer/Cluster/") }, "the scan sees the cluster bus")
    #expect(files.contains { $0.path.hasPrefix("RelayServer/TUIO/") }, "the scan sees TUIO")
    for (path, code) in files {
      for line in code where line.trimmingCharacters(in: .whitespaces) == "import CLibWebSockets" {
        Issue.record("Sources/\(path) imports CLibWebSockets: reach libwebsockets through the driver")
      }
    }
  }

  @Test func onlyTheDriverNamesLibWebSocketsSymbols() throws {
    let symbol = /\b(lws_|LWS_|tr_lws_)[A-Za-z0-9_]*/
    for (path, code) in try Self.filesOutsideTheDriver() {
      for (number, line) in code.enumerated() {
        if let found = line.firstMatch(of: symbol) {
          Issue.record("Sources/\(path):\(number + 1) names \(found.output.0): reach libwebsockets through the driver")
        }
      }
    }
  }
}

import Foundation
import RelayServer
import Testing

/// `RelayOption.all` is the one table of the server's options: the README's configuration
/// table, `touch-relay --help` and `RelayConfiguration.validate()` must all follow it.
@Suite struct RelayOptionTests {
  /// The README's row for an option: flag(s), variable, default, allowed values, help.
  static func readmeRow(_ o: RelayOption) -> String {
    let flags = o.isSwitch ? "`--\(o.flag)`, `--no-\(o.flag)`" : "`--\(o.flag) <\(o.valueName ?? "")>`"
    let allowed = o.allowed.isEmpty ? "any" : o.allowed
    return "| \(flags) | `\(o.environment)` | `\(o.defaultValue)` | \(allowed) | \(o.help) |"
  }

  static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("README.md")

  @Test func theReadmesConfigurationTableIsTheOptionTable() throws {
    let text = try String(contentsOf: Self.readme, encoding: .utf8)
    let section = try #require(text.range(of: "\n## Configuration\n"))
    let rest = text[section.upperBound...]
    let rows = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
      .split(separator: "\n").map(String.init).filter { $0.hasPrefix("| `--") }
    let expected = RelayOption.all.map(Self.readmeRow)
    #expect(
      rows == expected,
      "README.md's configuration table should read:\n\(expected.joined(separator: "\n"))")
  }

  @Test func theHelpShowsEveryOptionWithItsDefault() async throws {
    let (status, help) = try await runTool(ShutdownTests.binary.path, ["--help"])
    #expect(status == 0)
    // ArgumentParser wraps long help lines: compare with the whitespace folded.
    let folded = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    for o in RelayOption.all {
      #expect(folded.contains("--\(o.flag)"), "\(o.flag)")
      #expect(folded.contains("[env: \(o.environment)] (default: \(o.defaultValue)"), "\(o.flag)")
    }
  }

  /// Every integer option refuses one past either end of its range, both from a library
  /// user's configuration (`validate()`, which `RelayServer.start()` calls) and from the
  /// environment of the command line.
  @Test func rangesAreCheckedForALibraryUserToo() throws {
    let bounded = RelayOption.all.filter { $0.allowed.hasPrefix("from ") }
    #expect(bounded.count >= 15)
    for o in bounded {
      let words = o.allowed.split(separator: " ")
      let (low, high) = (try #require(Double(words[1])), try #require(Double(words[3])))
      var fine = RelayConfiguration()
      try o.set(o.defaultValue, in: &fine)
      #expect(throws: Never.self) { try fine.validate() }
      for bad in [low - 1, high + 1] {
        var c = RelayConfiguration()
        let text = bad == bad.rounded() ? String(Int(bad)) : String(bad)
        // An unsigned setting cannot even hold -1: that is refused when it is set.
        guard (try? o.set(text, in: &c)) != nil else { continue }
        #expect(throws: RelayConfiguration.InvalidValue.self, "\(o.flag) = \(text)") { try c.validate() }
        #expect(throws: (any Error).self, "\(o.flag) = \(text)") { try RelayServer(configuration: c).start() }
      }
    }
    var c = RelayConfiguration()
    c.pingInterval = 60
    c.idleTimeout = 30
    #expect(throws: RelayConfiguration.InvalidValue.self) { try c.validate() }
  }

  @Test func aFlagWinsOverTheEnvironmentAndABadValueIsNeverIgnored() throws {
    let env = ["TOUCH_RELAY_PORT": "9001", "TOUCH_RELAY_MAX_FPS": "120", "TOUCH_RELAY_GESTURES": "off"]
    let c = try RelayOption.configuration(flags: ["port": "9002"], environment: env)
    #expect(c.port == 9002)
    #expect(c.limits.maxFramesPerSecond == 120)
    #expect(c.gestures == false)
    #expect(throws: RelayConfiguration.InvalidValue.self) {
      try RelayOption.configuration(flags: [:], environment: ["TOUCH_RELAY_MAX_FINGERS": "ten"])
    }
    #expect(throws: RelayConfiguration.InvalidValue.self) {
      try RelayOption.configuration(flags: ["event-loop": "select"], environment: [:])
    }
  }
}

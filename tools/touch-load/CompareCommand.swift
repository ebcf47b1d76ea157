import ArgumentParser
import Foundation

/// `touch-load compare A.json B.json`: two runs' `--json` reports side by side, B / A for
/// each figure on stdout, and with `--html` on one page with their distributions and
/// timelines on the same axes.
struct CompareCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "touch-load compare",
    abstract: "Compare two runs' --json reports: B / A for each figure, and with --html on one page.")

  @Argument(help: "The first run's report (A, the reference), as written by --json.")
  var a: String

  @Argument(help: "The second run's report (B).")
  var b: String

  @Option(name: .long, help: "Write the comparison as one self-contained HTML page to this file.")
  var html: String?

  func run() throws {
    let ra = try Self.load(a)
    let rb = try Self.load(b)
    for row in ComparePage.rows(ra, rb) {
      func v(_ x: Double?) -> String { x.map { String(format: "%.3f", $0) } ?? "-" }
      let name = row.name + (row.unit.isEmpty ? "" : " (\(row.unit))")
      print(
        name.padding(toLength: 34, withPad: " ", startingAt: 0)
          + "A \(v(row.a))  B \(v(row.b))  B/A \(row.ratio.map { String(format: "%.2f", $0) } ?? "-")")
    }
    if let html {
      let page = ComparePage.html(ra, rb, nameA: (a as NSString).lastPathComponent, nameB: (b as NSString).lastPathComponent)
      try Data(page.utf8).write(to: URL(fileURLWithPath: html))
    }
  }

  static func load(_ path: String) throws -> Report {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw ValidationError("cannot read '\(path)': \(error.localizedDescription)")
    }
    do {
      return try JSONDecoder().decode(Report.self, from: data)
    } catch {
      throw ValidationError("'\(path)' is not a touch-load --json report: \(error)")
    }
  }
}

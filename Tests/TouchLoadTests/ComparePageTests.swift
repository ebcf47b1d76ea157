import Foundation
import MarkupReading
import Testing

@testable import touch_load

/// `touch-load compare A.json B.json --html`: both runs on the same axes, B / A as the JSON
/// files give them.
@Suite(.serialized) struct ComparePageTests {
  @Test func theComparisonShowsBothRunsAndTheirRatios() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touch-load-compare-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // Two loads, the second twice the first: B / A of the frame rate near 2.
    let files = [dir.appendingPathComponent("a.json"), dir.appendingPathComponent("b.json")]
    for (sources, file) in zip([2, 4], files) {
      try await LoadRunAgainstRelay.run(sources: sources).json().write(to: file)
    }
    // Read back as `compare` reads them.
    let a = try CompareCommand.load(files[0].path)
    let b = try CompareCommand.load(files[1].path)
    let ja = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: files[0])) as? [String: Any])
    let jb = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: files[1])) as? [String: Any])
    let elements = try #require(XMLElements.parse(ComparePage.html(a, b, nameA: "a.json", nameB: "b.json")))

    func cell(_ field: String) -> String? { elements.first { $0.attributes["data-field"] == field }?.text }
    let fa = try #require(ja["steadyFramesPerSecond"] as? Double)
    let fb = try #require(jb["steadyFramesPerSecond"] as? Double)
    #expect(cell("ratio.steadyFramesPerSecond") == String(format: "%.2f×", fb / fa))
    #expect(fb / fa > 1.5, "four sources against two")
    for (side, json) in [("a", ja), ("b", jb)] {
      let p99 = try #require((json["touchLatency"] as? [String: Any])?["p99"] as? Double)
      #expect(ReportPageTests.close(ReportPageTests.number(cell("\(side).touches.p99")), p99))
    }
    let pa = try #require((ja["gestureLatency"] as? [String: Any])?["p99"] as? Double)
    let pb = try #require((jb["gestureLatency"] as? [String: Any])?["p99"] as? Double)
    // A run too slow to time any gesture (a sanitizer build) has no gesture latency: no ratio.
    #expect(cell("ratio.gestures.p99") == (pa > 0 ? String(format: "%.2f×", pb / pa) : "–"))

    // Both runs on each chart (those with a distribution): A solid, B dashed, each with the
    // JSON's series.
    let gestureRuns = [pa > 0 ? "A" : nil, pb > 0 ? "B" : nil].compactMap { $0 }
    for (chart, runs) in [("distribution-touches", ["A", "B"]), ("distribution-gestures", gestureRuns)] {
      let start = try #require(elements.firstIndex { $0.attributes["id"] == chart })
      let lines = elements[start...].prefix { $0.attributes["id"] == chart || $0.name != "svg" }
        .filter { $0.name == "path" && $0.attributes["class"] == "series" }
      #expect(lines.map { $0.attributes["data-series"] } == runs, "\(chart)")
      if runs.last == "B" { #expect(lines.last?.attributes["stroke-dasharray"] != nil) }
    }
    for (name, json) in [("A frames sent", ja), ("B frames sent", jb)] {
      let series = try #require(json["series"] as? [[String: Any]])
      let drawn = elements.first { $0.attributes["data-series"] == name }
      #expect(drawn?.attributes["data-values"] == series.map { String($0["framesSent"] as! Int) }.joined(separator: ","))
    }
    #expect(elements.contains { $0.attributes["id"] == "verdict-a" } && elements.contains { $0.attributes["id"] == "verdict-b" })
  }

  @Test func aReportFromBeforeTheCurvesStillCompares() async throws {
    let report = try await LoadRunAgainstRelay.run(sources: 1, duration: 0.5)
    var old = try LoadRunAgainstRelay.json(report)
    for key in ["touchLatency", "gestureLatency", "distributions", "firstMessages", "date", "timedFromSecond"] {
      old[key] = nil
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("touch-load-old-\(UUID().uuidString).json")
    defer { try? FileManager.default.removeItem(at: file) }
    try JSONSerialization.data(withJSONObject: old).write(to: file)
    let a = try CompareCommand.load(file.path)
    let elements = try #require(XMLElements.parse(ComparePage.html(a, report, nameA: "old", nameB: "new")))
    #expect(elements.first { $0.attributes["data-field"] == "a.touches.p99" }?.text == "–")
    #expect(elements.first { $0.attributes["data-field"] == "b.all.p99" }?.text == Markup.ms(report.latency.p99))
  }
}

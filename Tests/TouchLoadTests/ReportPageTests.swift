import Foundation
import MarkupReading
import Testing

@testable import touch_load

/// `touch-load --html`: the page is well-formed, has what a reader looks for, and its
/// numbers are the JSON report's.
@Suite(.serialized) struct ReportPageTests {
  typealias Element = XMLElements.Element

  static func cell(_ elements: [Element], _ field: String) -> String? {
    elements.first { $0.attributes["data-field"] == field }?.text
  }

  /// A figure as the page writes it, read back; nil for "–".
  static func number(_ text: String?) -> Double? {
    text.flatMap { Double($0.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: "×", with: "")) }
  }

  /// Three significant digits at least, as the page rounds milliseconds.
  static func close(_ shown: Double?, _ exact: Double) -> Bool {
    guard let shown else { return false }
    return abs(shown - exact) <= max(0.0006, abs(exact) * 0.005)
  }

  @Test func theReportPageShowsTheRunAsTheJSONHasIt() async throws {
    let report = try await LoadRunAgainstRelay.run(sources: 3)
    let json = try LoadRunAgainstRelay.json(report)
    let html = ReportPage.html(report)
    #expect(!html.contains("<script"), "no script")
    #expect(!html.contains(" src=") && !html.contains(" href=") && !html.contains("url("), "nothing is fetched")
    let elements = try #require(XMLElements.parse(html), "the page must be well-formed")

    // The verdict first, with the run's p99.
    let latency = try #require(json["latency"] as? [String: Any])
    let verdict = try #require(elements.first { $0.attributes["id"] == "verdict" })
    #expect(verdict.text.contains("p99 \(Markup.ms(latency["p99"] as! Double)) ms"))
    let clean = (json["droppedMessages"] as? Int) == 0 && (json["failures"] as? [String: Int])?.isEmpty == true
      && (json["warnings"] as? [String])?.isEmpty == true
      && (json["sourceConnections"] as? [String: Any])?["failed"] as? Int == 0
    #expect(verdict.attributes["class"] == (clean ? "verdict clean" : "verdict problems"), "\(verdict.text)")
    // The settings: where it ran.
    let url = try #require((json["config"] as? [String: Any])?["url"] as? String)
    #expect(elements.contains { $0.attributes["id"] == "settings" && $0.text.contains(url) })

    // The percentile table and the marks on the distribution charts: the JSON's figures.
    for (key, jsonKey) in [("touches", "touchLatency"), ("gestures", "gestureLatency"), ("all", "latency")] {
      let s = try #require(json[jsonKey] as? [String: Any])
      let count = try #require(s["count"] as? Int)
      #expect(count > 0, "\(jsonKey): the run timed nothing")
      #expect(Self.number(Self.cell(elements, "\(key).count")) == Double(count))
      for (label, field) in [("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p99.9", "p999"), ("p99.99", "p9999"), ("max", "max")] {
        let value = try #require(s[field] as? Double)
        #expect(Self.close(Self.number(Self.cell(elements, "\(key).\(label)")), value), "\(key) \(label)")
        if key != "all" {
          let mark = elements.first {
            $0.attributes["class"] == "mark" && $0.attributes["data-series"] == key && $0.attributes["data-label"] == label
          }
          #expect(mark?.attributes["data-ms"].flatMap(Double.init) == value, "\(key) \(label) mark")
        }
      }
      if key != "all" {
        // The curve drawn is the JSON's: one point per percentile it lists.
        let curve = try #require((json["distributions"] as? [String: Any])?[key] as? [[String: Any]])
        let path = try #require(elements.first { $0.name == "path" && $0.attributes["data-series"] == key })
        #expect(path.attributes["d"]?.split(separator: " ").filter { $0.hasPrefix("M") || $0.hasPrefix("L") }.count == curve.count)
      }
    }

    // The timeline: one value per second of the JSON series, in each panel.
    let series = try #require(json["series"] as? [[String: Any]])
    #expect(!series.isEmpty)
    for (panel, name, field) in [
      ("timeline-frames", "frames sent", "framesSent"), ("timeline-received", "messages received", "messagesReceived"),
      ("timeline-trouble", "dropped", "droppedMessages"), ("timeline-trouble", "errors", "errors"),
    ] {
      let svg = try #require(elements.firstIndex { $0.attributes["id"] == panel })
      let drawn = elements[svg...].first { $0.attributes["data-series"] == name }
      let expected = series.map { String($0[field] as! Int) }.joined(separator: ",")
      #expect(drawn?.attributes["data-values"] == expected, "\(panel) \(name)")
    }
    let p99 = elements.first { $0.attributes["data-series"] == "p99" }?.attributes["data-values"]?
      .split(separator: ",", omittingEmptySubsequences: false).map { Double($0) }
    #expect(p99 == series.map { s in
      let v = s["latencyP99"] as! Double
      return v > 0 || (s["latencyMax"] as! Double) > 0 ? v : nil
    })
    for title in ["Frames sent per second", "Messages received per second", "Latency of the messages received in each second",
                  "Dropped messages and errors per second"] {
      #expect(elements.contains { $0.attributes["class"] == "chart-title" && $0.text.hasPrefix(title) }, "\(title)")
    }
    #expect(Self.number(Self.cell(elements, "framesSent")) == Double(json["framesSent"] as! Int))
    #expect(elements.contains { $0.attributes["id"] == "no-errors" })
  }

  @Test func failedConnectionsAreListedWithTheirFirstMessage() async throws {
    // Observers need a token this run does not have: both are refused.
    let report = try await LoadRunAgainstRelay.run(sources: 1, observers: 2, duration: 0.5, observerToken: "secret")
    let json = try LoadRunAgainstRelay.json(report)
    let observers = try #require(json["observerConnections"] as? [String: Any])
    let failures = try #require(observers["failures"] as? [String: Int])
    #expect(observers["failed"] as? Int == 2)
    let (kind, count) = try #require(failures.first)
    let first = try #require((observers["firstMessages"] as? [String: String])?[kind])
    #expect(first.contains("401"), "\(first)")

    let elements = try #require(XMLElements.parse(ReportPage.html(report)))
    let verdict = try #require(elements.first { $0.attributes["id"] == "verdict" })
    #expect(verdict.attributes["class"] == "verdict problems")
    #expect(verdict.text.contains("2 connections failed"))
    #expect(Self.cell(elements, "observers.failed") == "2")
    let row = try #require(elements.first { $0.name == "tr" && $0.text.contains(kind) && $0.text.contains("observer connect") })
    #expect(row.text.contains(Markup.escape(first)) || row.text.contains(first))
    #expect(Self.cell(elements, "errors.\(kind)") == String(count))
  }
}

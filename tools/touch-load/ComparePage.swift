import Foundation

/// `touch-load compare A.json B.json --html`: two runs on one page, the way a change is
/// checked: their verdicts, a table of the figures with B / A for each, the latency
/// distributions and the per-second timelines on the same axes (A solid, B dashed).
enum ComparePage {
  static let colourA = "#1f6fb4"
  static let colourB = "#c2410c"

  /// One compared figure: its values in A and B, and whether higher is better.
  struct Row {
    var field: String
    var name: String
    var a: Double?
    var b: Double?
    var higherIsBetter: Bool
    var unit: String

    /// B / A; nil when either is missing or A is 0.
    var ratio: Double? {
      guard let a, let b, a != 0 else { return nil }
      return b / a
    }
  }

  static func rows(_ a: Report, _ b: Report) -> [Row] {
    var rows: [Row] = []
    for (key, name, sa, sb) in [
      ("touches", "touches", a.touchLatency, b.touchLatency), ("gestures", "gestures", a.gestureLatency, b.gestureLatency),
      ("all", "all timed", Optional(a.latency), Optional(b.latency)),
    ] {
      func values(_ s: LatencySummary?) -> [Double?] {
        guard let s, s.count > 0 else { return Array(repeating: nil, count: 6) }
        return [s.p50, s.p90, s.p99, s.p999, s.p9999, s.max]
      }
      for (i, p) in PercentileChart.standardPercentiles.enumerated() {
        rows.append(
          Row(field: "\(key).\(p.label)", name: "\(name) \(p.label)", a: values(sa)[i], b: values(sb)[i], higherIsBetter: false, unit: "ms"))
      }
    }
    func errors(_ r: Report) -> Double {
      Double(r.serverErrors.values.reduce(0, +) + r.failures.values.reduce(0, +) + r.sourceConnections.failed + r.observerConnections.failed)
    }
    rows += [
      Row(field: "steadyFramesPerSecond", name: "frames/s, all sources sending", a: a.steadyFramesPerSecond, b: b.steadyFramesPerSecond, higherIsBetter: true, unit: ""),
      Row(field: "messagesPerSecond", name: "messages/s received", a: a.messagesPerSecond, b: b.messagesPerSecond, higherIsBetter: true, unit: ""),
      Row(field: "sendLag.p99", name: "touch-load send lag p99", a: a.sendLag.p99, b: b.sendLag.p99, higherIsBetter: false, unit: "ms"),
      Row(field: "droppedMessages", name: "messages dropped", a: Double(a.droppedMessages), b: Double(b.droppedMessages), higherIsBetter: false, unit: ""),
      Row(field: "errors", name: "errors and failed connections", a: errors(a), b: errors(b), higherIsBetter: false, unit: ""),
    ]
    return rows
  }

  static func html(_ a: Report, _ b: Report, nameA: String, nameB: String) -> String {
    var body = "<h1>touch-load compare: B / A</h1>"
    body += #"<p class="sub">A = <code>\#(Markup.escape(nameA))</code> (solid), B = <code>\#(Markup.escape(nameB))</code> (dashed)</p>"#
    for (id, name, r) in [("a", "A", a), ("b", "B", b)] {
      let v = RunVerdict(r)
      body += #"<p id="verdict-\#(id)" class="verdict \#(v.clean ? "clean" : "problems")">\#(name): \#(Markup.escape(v.headline(r)))</p>"#
    }
    body += "<h2>Figures</h2>" + ratioTable(rows(a, b))
    body += "<h2>Settings</h2>" + settings(a, b)
    body += "<h2>Latency distribution</h2>"
    body += #"<div class="charts">"#
    for (key, title, sa, sb) in [
      ("touches", "Touches (the raw mirror)", a.touchLatency, b.touchLatency),
      ("gestures", "Gestures (the engine's events)", a.gestureLatency, b.gestureLatency),
    ] {
      let chart = PercentileChart(
        id: "distribution-\(key)", title: title,
        lines: [
          .init(series: ReportPage.curveSeries(key, a, name: "A", colour: colourA), marks: ReportPage.marks(sa)),
          .init(series: ReportPage.curveSeries(key, b, name: "B", colour: colourB, dashed: true), marks: ReportPage.marks(sb)),
        ],
        labelled: false)
      body += chart.svg()
    }
    body += "</div>"
    body += "<h2>Second by second</h2>"
    body += ReportPage.timelinePanels(
      [(name: "A", report: a, dashed: false), (name: "B", report: b, dashed: true)], colours: [colourA, colourB],
      lightColours: ["#8fb8de", "#f0a27a"])
    return PageShell.html(title: "touch-load compare: \(nameA) vs \(nameB)", body: body)
  }

  private static func ratioTable(_ rows: [Row]) -> String {
    func value(_ v: Double?, _ unit: String) -> String {
      guard let v else { return "–" }
      return unit == "ms" ? Markup.ms(v) : (v < 10 && v != v.rounded() ? String(format: "%.2f", v) : Markup.count(v))
    }
    var out = #"<table id="ratios"><tr><th></th><th class="n">A</th><th class="n">B</th><th class="n">B / A</th></tr>"#
    for r in rows {
      var cls = "n"
      if let ratio = r.ratio, abs(ratio - 1) >= 0.05 {
        cls += (ratio > 1) == r.higherIsBetter ? " better" : " worse"
      } else if r.ratio == nil, let a = r.a, let b = r.b, a == 0, b > 0 {
        cls += r.higherIsBetter ? " better" : " worse"
      }
      let ratio = r.ratio.map { String(format: "%.2f×", $0) } ?? "–"
      out += "<tr><th>\(Markup.escape(r.name))\(r.unit.isEmpty ? "" : ", \(r.unit)")</th>"
        + ReportPage.cell("a.\(r.field)", value(r.a, r.unit)) + ReportPage.cell("b.\(r.field)", value(r.b, r.unit))
        + ReportPage.cell("ratio.\(r.field)", ratio, cls) + "</tr>"
    }
    return out + "</table>"
  }

  private static func settings(_ a: Report, _ b: Report) -> String {
    func describe(_ r: Report) -> [(String, String)] {
      let c = r.config
      return [
        ("server", c.url), ("sources", "\(c.sources) × \(Markup.ms(c.rate)) Hz"),
        ("sessions", "\(c.sessions) × \(c.observersPerSession) observers\(c.raw ? " (raw)" : "")"),
        ("scenario", c.scenario + (c.sendIdle ? ", idle frames" : "")),
        ("duration", "\(Markup.ms(c.duration)) s, ramp-up \(Markup.ms(c.rampUp)) s, warm-up \(Markup.ms(c.warmup)) s"),
        ("touch-load threads", "\(c.threads)"), ("seed", "\(c.seed)"), ("finished", r.date ?? "–"),
      ]
    }
    var out = #"<table id="settings"><tr><th></th><th>A</th><th>B</th></tr>"#
    for (x, y) in zip(describe(a), describe(b)) {
      // Different settings are what a reader must notice before reading the ratios.
      let cls = x.1 == y.1 || x.0 == "finished" ? "" : #" class="worse""#
      out += "<tr><th>\(x.0)</th><td\(cls)>\(Markup.escape(x.1))</td><td\(cls)>\(Markup.escape(y.1))</td></tr>"
    }
    return out + "</table>"
  }
}

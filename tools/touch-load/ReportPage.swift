import Foundation

/// `--html`: one run's report as a page a person reads in ten seconds: the verdict and the
/// figures that matter first, then the latency distribution of touches and gestures, the
/// run second by second, and what failed with its first message. Every number comes from
/// the same `Report` the JSON has, so the two never disagree.
enum ReportPage {
  static let touchColour = "#1f6fb4"
  static let gestureColour = "#c2410c"

  static func html(_ r: Report) -> String {
    let verdict = RunVerdict(r)
    let c = r.config
    var b = ""
    b += "<h1>touch-load: \(c.sources) source\(c.sources == 1 ? "" : "s") × \(Markup.ms(c.rate)) Hz, \(Markup.escape(c.scenario))</h1>"
    b += #"<p class="sub"><code>\#(Markup.escape(c.url))</code> · \#(String(format: "%.1f", r.elapsed)) s\#(r.date.map { " · finished " + Markup.escape($0) } ?? "")</p>"#
    b += #"<p id="verdict" class="verdict \#(verdict.clean ? "clean" : "problems")">\#(Markup.escape(verdict.headline(r)))</p>"#
    b += figures(r)
    if !r.warnings.isEmpty {
      b += #"<ul class="warnings">"# + r.warnings.map { "<li>\(Markup.escape($0))</li>" }.joined() + "</ul>"
    }
    b += "<h2>Settings</h2>" + settings(r)
    b += "<h2>Latency distribution</h2>"
    b += #"<p class="muted">From the time a frame was due to the time an observer had the message it caused "#
      + "(timer-driven gestures from their timer's due time). Frames due in the ramp-up and warm-up are not timed.</p>"
    b += #"<div class="charts">"#
    for (key, title, colour, summary) in [
      ("touches", "Touches (the raw mirror)", touchColour, r.touchLatency),
      ("gestures", "Gestures (the engine's events)", gestureColour, r.gestureLatency),
    ] {
      let chart = PercentileChart(
        id: "distribution-\(key)", title: title,
        lines: [PercentileChart.Line(series: curveSeries(key, r, colour: colour), marks: marks(summary))],
        labelled: true)
      b += chart.svg()
    }
    b += "</div>"
    b += percentileTable(r)
    b += "<h2>Second by second</h2>"
    b += timelines(r)
    b += "<h2>Connections and errors</h2>"
    b += errors(r)
    b += "<h2>Messages</h2>" + messages(r)
    return PageShell.html(title: "touch-load report: \(c.sources) × \(Markup.ms(c.rate)) Hz, \(c.scenario)", body: b)
  }

  /// The curve of one kind ("all", "touches", "gestures") as a chart line.
  static func curveSeries(_ key: String, _ r: Report, name: String? = nil, colour: String, dashed: Bool = false)
    -> ChartSeries
  {
    let points = (r.distributions?[key] ?? []).map { (x: $0.percentile, y: Optional($0.ms)) }
    return ChartSeries(name: name ?? key, colour: colour, dashed: dashed, points: points)
  }

  static func marks(_ s: LatencySummary?) -> [(label: String, percentile: Double, ms: Double)] {
    guard let s, s.count > 0 else { return [] }
    let values = [s.p50, s.p90, s.p99, s.p999, s.p9999 ?? s.max, s.max]
    return zip(PercentileChart.standardPercentiles, values).map { standard, ms in
      (label: standard.label, percentile: standard.percentile, ms: ms)
    }
  }

  private static func figures(_ r: Report) -> String {
    func figure(_ id: String, _ value: String, _ what: String) -> String {
      #"<div class="figure" id="figure-\#(id)"><div class="value">\#(value)</div><div class="what">\#(Markup.escape(what))</div></div>"#
    }
    let errors = r.serverErrors.values.reduce(0, +) + r.failures.values.reduce(0, +)
    return #"<div class="figures">"#
      + figure("frames", Markup.count(r.steadyFramesPerSecond), "frames/s, all sources sending")
      + figure("messages", Markup.count(r.messagesPerSecond), "messages/s received")
      + figure("touch-p99", (r.touchLatency?.count ?? 0) > 0 ? Markup.ms(r.touchLatency!.p99) + " ms" : "–", "touches p99")
      + figure("gesture-p99", (r.gestureLatency?.count ?? 0) > 0 ? Markup.ms(r.gestureLatency!.p99) + " ms" : "–", "gestures p99")
      + figure("dropped", Markup.count(Double(r.droppedMessages)), "messages dropped")
      + figure("errors", Markup.count(Double(errors + r.sourceConnections.failed + r.observerConnections.failed)), "errors and failed connections")
      + "</div>"
  }

  private static func settings(_ r: Report) -> String {
    let c = r.config
    let rows: [(String, String)] = [
      ("server", c.url), ("sources", "\(c.sources) at \(Markup.ms(c.rate)) frames/s each"),
      ("sessions", "\(c.sessions), \(c.observersPerSession) observer\(c.observersPerSession == 1 ? "" : "s") each\(c.raw ? " (raw)" : "")"),
      ("scenario", c.scenario + (c.sendIdle ? ", idle frames sent" : "")),
      ("duration", "\(Markup.ms(c.duration)) s after a \(Markup.ms(c.rampUp)) s ramp-up; \(Markup.ms(c.warmup)) s warm-up not timed"),
      ("touch-load", "\(c.threads) event loop thread\(c.threads == 1 ? "" : "s"), seed \(c.seed); "
        + String(format: "CPU user %.2f s, system %.2f s", r.cpu.userSeconds, r.cpu.systemSeconds)),
    ]
    return #"<table id="settings">"# + rows.map { "<tr><th>\($0.0)</th><td>\(Markup.escape($0.1))</td></tr>" }.joined()
      + "</table>"
  }

  private static func percentileTable(_ r: Report) -> String {
    var out = #"<table id="percentiles"><tr><th>ms</th><th class="n">count</th>"#
      + PercentileChart.standardPercentiles.map { #"<th class="n">\#($0.label)</th>"# }.joined()
      + #"<th class="n">mean</th></tr>"#
    for (key, name, s) in [
      ("touches", "touches", r.touchLatency), ("gestures", "gestures", r.gestureLatency), ("all", "all timed messages", Optional(r.latency)),
      ("sendLag", "touch-load's send lag (included above)", Optional(r.sendLag)),
    ] {
      guard let s else { continue }
      out += "<tr><th>\(Markup.escape(name))</th>" + cell("\(key).count", Markup.count(Double(s.count)))
      let values = [s.p50, s.p90, s.p99, s.p999, s.p9999, s.max]
      for (p, v) in zip(PercentileChart.standardPercentiles, values) {
        out += cell("\(key).\(p.label)", s.count == 0 ? "–" : v.map(Markup.ms) ?? "–")
      }
      out += cell("\(key).mean", s.count == 0 ? "–" : Markup.ms(s.mean)) + "</tr>"
    }
    return out + "</table>"
  }

  static func cell(_ field: String, _ text: String, _ cls: String = "n") -> String {
    #"<td class="\#(cls)" data-field="\#(Markup.escape(field))">\#(Markup.escape(text))</td>"#
  }

  /// The four panels of the per-second series, one or more runs on the same axes.
  static func timelinePanels(
    _ runs: [(name: String, report: Report, dashed: Bool)], colours: [String]? = nil, lightColours: [String]? = nil
  ) -> String {
    let seconds = runs.map { $0.report.series.count }.max() ?? 0
    func line(_ name: String, _ colour: String, _ dashed: Bool, _ r: Report, _ value: (SecondReport) -> Double?)
      -> ChartSeries
    {
      ChartSeries(
        name: name, colour: colour, dashed: dashed,
        points: r.series.map { (x: Double($0.second), y: value($0)) })
    }
    let single = runs.count == 1
    func label(_ run: String, _ what: String) -> String { single ? what : "\(run) \(what)" }
    let palette = colours ?? [touchColour, gestureColour]
    var frames: [ChartSeries] = []
    var received: [ChartSeries] = []
    var latency: [ChartSeries] = []
    var trouble: [ChartSeries] = []
    for (i, run) in runs.enumerated() {
      let colour = palette[i % palette.count]
      frames.append(line(label(run.name, "frames sent"), colour, run.dashed, run.report) { Double($0.framesSent) })
      received.append(line(label(run.name, "messages received"), colour, run.dashed, run.report) { Double($0.messagesReceived) })
      // A second with no timed message has no latency: a gap, not a zero.
      let timed: (SecondReport) -> Bool = { $0.latencyMax > 0 || $0.latencyP99 > 0 }
      let light = lightColours.map { $0[i % $0.count] } ?? colour
      latency.append(line(label(run.name, "p50"), single ? "#2f855a" : light, run.dashed || single, run.report) { timed($0) ? $0.latencyP50 : nil })
      latency.append(line(label(run.name, "p99"), single ? "#c53030" : colour, run.dashed && !single, run.report) { timed($0) ? $0.latencyP99 : nil })
      trouble.append(line(label(run.name, "dropped"), single ? "#dd6b20" : colour, false, run.report) { Double($0.droppedMessages) })
      trouble.append(line(label(run.name, "errors"), single ? "#9b2c2c" : colour, false, run.report) { Double($0.errors) })
    }
    let warmup = runs.count == 1 ? runs[0].report.timedFromSecond ?? 0 : 0
    return [
      TimelineChart(id: "timeline-frames", title: "Frames sent per second", unit: "", series: frames, seconds: seconds, warmupEnd: warmup),
      TimelineChart(id: "timeline-received", title: "Messages received per second", unit: "", series: received, seconds: seconds, warmupEnd: warmup),
      TimelineChart(id: "timeline-latency", title: "Latency of the messages received in each second", unit: "ms", series: latency, seconds: seconds, warmupEnd: warmup),
      TimelineChart(id: "timeline-trouble", title: "Dropped messages and errors per second", unit: "", series: trouble, seconds: seconds, bars: true, warmupEnd: warmup),
    ].map { $0.svg() }.joined()
  }

  private static func timelines(_ r: Report) -> String {
    var out = ""
    if let t = r.timedFromSecond, t > 0 {
      out += #"<p class="muted">Shaded: connecting, ramp-up and warm-up (to \#(String(format: "%.1f", t)) s), not timed.</p>"#
    }
    return out + timelinePanels([(name: "", report: r, dashed: false)])
  }

  private static func errors(_ r: Report) -> String {
    var out = #"<table id="connections"><tr><th></th><th class="n">attempted</th><th class="n">connected</th><th class="n">failed</th></tr>"#
    for (key, name, s) in [("sources", "sources", r.sourceConnections), ("observers", "observers", r.observerConnections)] {
      out += "<tr><th>\(name)</th>" + cell("\(key).attempted", "\(s.attempted)") + cell("\(key).connected", "\(s.connected)")
        + cell("\(key).failed", "\(s.failed)") + "</tr>"
    }
    out += "</table>"
    var rows: [(String, String, Int, String)] = []
    for (kind, n) in r.sourceConnections.failures { rows.append(("source connect", kind, n, r.sourceConnections.firstMessages?[kind] ?? "")) }
    for (kind, n) in r.observerConnections.failures { rows.append(("observer connect", kind, n, r.observerConnections.firstMessages?[kind] ?? "")) }
    for (code, n) in r.serverErrors { rows.append(("server error", code, n, r.firstMessages?[code] ?? "")) }
    for (kind, n) in r.failures { rows.append(("failure", kind, n, r.firstMessages?[kind] ?? "")) }
    if rows.isEmpty { return out + #"<p id="no-errors">No connection failed and no error was reported.</p>"# }
    rows.sort { $0.2 != $1.2 ? $0.2 > $1.2 : $0.1 < $1.1 }
    out += #"<table id="errors"><tr><th>where</th><th>what</th><th class="n">count</th><th>first message</th></tr>"#
    for (where_, kind, n, first) in rows {
      out += "<tr><td>\(where_)</td><td><code>\(Markup.escape(kind))</code></td>" + cell("errors.\(kind)", "\(n)")
        + "<td>\(Markup.escape(first))</td></tr>"
    }
    return out + "</table>"
  }

  private static func messages(_ r: Report) -> String {
    var out = #"<table id="messages"><tr><th>frames sent</th>"# + cell("framesSent", Markup.count(Double(r.framesSent)))
      + "<td>of \(Markup.count(Double(r.framesScheduled))) due, \(String(format: "%.1f", r.sendingTime)) s sending</td></tr>"
    out += "<tr><th>messages received</th>" + cell("messagesReceived", Markup.count(Double(r.messagesReceived)))
      + "<td>per observer min \(r.messagesPerObserver.min), mean \(String(format: "%.1f", r.messagesPerObserver.mean)), max \(r.messagesPerObserver.max)</td></tr>"
    for (type, n) in r.messagesByType.sorted(by: { $0.value > $1.value }) {
      out += "<tr><th>· \(Markup.escape(type))</th>" + cell("byType.\(type)", Markup.count(Double(n))) + "<td></td></tr>"
    }
    for (g, n) in r.gestures.sorted(by: { $0.key < $1.key }) {
      out += "<tr><th>· gesture \(Markup.escape(g))</th>" + cell("gesture.\(g)", Markup.count(Double(n))) + "<td></td></tr>"
    }
    out += "<tr><th>not matched / out of order / timer-driven</th><td class=\"n\">\(r.unmatchedMessages) / \(r.outOfOrderMessages) / \(r.timerDrivenMessages)</td><td></td></tr>"
    return out + "</table>"
  }
}

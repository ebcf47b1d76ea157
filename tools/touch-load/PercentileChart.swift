import Foundation

/// The latency percentile distribution as HdrHistogram's plotters draw it: latency up, and
/// along the bottom 1 / (1 - percentile) on a log scale, so 90 %, 99 %, 99.9 %, 99.99 % are
/// evenly spaced and the tail, where the trouble is, gets as much room as the body. The
/// maximum sits at the right end. Each line can carry marks at the percentiles a reader
/// looks for, with their values.
struct PercentileChart {
  struct Line {
    var series: ChartSeries
    /// (label, percentile, ms): drawn as dots, with their values when `labelled`.
    var marks: [(label: String, percentile: Double, ms: Double)]
  }

  var id: String
  var title: String
  var lines: [Line]
  var labelled: Bool
  var width = 560.0
  var height = 320.0

  static let standardPercentiles: [(label: String, percentile: Double)] = [
    ("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9), ("p99.99", 99.99), ("max", 100),
  ]

  private let left = 58.0
  private let right = 16.0
  private let top = 34.0
  private let bottom = 44.0

  /// Decades of 1 / (1 - p) on the axis: at least to 99.99 %, further if a curve goes on.
  private var decades: Double {
    let furthest = lines.flatMap { $0.series.points }.map(\.x).filter { $0 < 100 }.map(Self.position).max() ?? 0
    return max(4, furthest.rounded(.up))
  }

  /// Where a percentile sits along the axis, in decades; 100 % (the maximum) after the last one.
  static func position(_ percentile: Double) -> Double {
    percentile >= 100 ? .infinity : -log10(1 - percentile / 100)
  }

  func svg() -> String {
    let decades = self.decades
    let maxPosition = decades + 0.6
    let x = AxisScale(lower: 0, upper: maxPosition, pixelLower: left, pixelUpper: width - right)
    let highest = lines.flatMap { $0.series.points.compactMap(\.y) + $0.marks.map(\.ms) }.max() ?? 0
    let yTop = AxisScale.niceCeiling(highest)
    let y = AxisScale(lower: 0, upper: yTop, pixelLower: height - bottom, pixelUpper: top)
    func px(_ percentile: Double) -> Double {
      x.pixel(percentile >= 100 ? maxPosition : Self.position(percentile))
    }
    var out =
      #"<svg xmlns="http://www.w3.org/2000/svg" id="\#(Markup.escape(id))" class="chart" "#
      + #"width="\#(Int(width))" height="\#(Int(height))" viewBox="0 0 \#(Int(width)) \#(Int(height))" role="img">"#
    out += #"<title>\#(Markup.escape(title))</title>"#
    out += #"<text class="chart-title" x="\#(Int(left))" y="20">\#(Markup.escape(title))</text>"#
    // Grid and axes.
    for v in AxisScale.ticks(upTo: yTop) {
      let py = Markup.coordinate(y.pixel(v))
      out += #"<line class="grid" x1="\#(Int(left))" x2="\#(Int(width - right))" y1="\#(py)" y2="\#(py)"/>"#
      out += #"<text class="tick" x="\#(Int(left - 6))" y="\#(py)" text-anchor="end" dy="4">\#(Markup.ms(v))</text>"#
    }
    var xTicks: [(String, Double)] = [("0%", 0), ("50%", 50)]
    for d in 1...Int(decades) {
      let p = 100 * (1 - pow(10, -Double(d)))
      xTicks.append((String(format: "%.\(max(0, d - 2))f%%", p), p))
    }
    xTicks.append(("max", 100))
    for (label, p) in xTicks {
      let pxv = Markup.coordinate(px(p))
      out += #"<line class="grid" x1="\#(pxv)" x2="\#(pxv)" y1="\#(Int(top))" y2="\#(Int(height - bottom))"/>"#
      out += #"<text class="tick" x="\#(pxv)" y="\#(Int(height - bottom + 16))" text-anchor="middle">\#(label)</text>"#
    }
    out += #"<text class="axis-label" x="14" y="\#(Int((top + height - bottom) / 2))" "#
      + #"transform="rotate(-90 14 \#(Int((top + height - bottom) / 2)))" text-anchor="middle">latency, ms</text>"#
    out += #"<text class="axis-label" x="\#(Int((left + width - right) / 2))" y="\#(Int(height - 8))" "#
      + #"text-anchor="middle">percentile (log scale of 1 / (1 − p))</text>"#
    if lines.allSatisfy({ $0.series.points.isEmpty }) {
      out += #"<text class="empty" x="\#(Int(width / 2))" y="\#(Int(height / 2))" text-anchor="middle">no samples</text>"#
    }
    // The lines, then their marks on top.
    for line in lines where !line.series.points.isEmpty {
      let s = line.series
      let d = s.points.compactMap { p in p.y.map { (px(p.x), y.pixel($0)) } }
        .enumerated().map { (i, p) in "\(i == 0 ? "M" : "L")\(Markup.coordinate(p.0)) \(Markup.coordinate(p.1))" }
        .joined(separator: " ")
      out += #"<path class="series" data-series="\#(Markup.escape(s.name))" d="\#(d)" fill="none" "#
        + #"stroke="\#(s.colour)" stroke-width="2"\#(s.dashed ? #" stroke-dasharray="6 4""# : "")/>"#
    }
    for (index, line) in lines.enumerated() where !line.series.points.isEmpty {
      for m in line.marks {
        let cx = Markup.coordinate(px(m.percentile))
        let cy = y.pixel(m.ms)
        out += #"<circle class="mark" data-series="\#(Markup.escape(line.series.name))" data-label="\#(m.label)" "#
          + #"data-ms="\#(m.ms)" cx="\#(cx)" cy="\#(Markup.coordinate(cy))" r="3.5" fill="\#(line.series.colour)">"#
          + #"<title>\#(Markup.escape(line.series.name)) \#(m.label): \#(Markup.ms(m.ms)) ms</title></circle>"#
        if labelled {
          // Alternate above and below the line, so neighbouring labels do not sit on each other.
          let dy = (index + (m.label == "max" ? 1 : 0)) % 2 == 0 ? -9.0 : 17.0
          out += #"<text class="mark-label" x="\#(cx)" y="\#(Markup.coordinate(max(top + 10, cy + dy)))" "#
            + #"text-anchor="\#(m.percentile >= 100 ? "end" : "middle")">\#(Markup.ms(m.ms))</text>"#
        }
      }
    }
    out += legend(lines.map(\.series))
    out += "</svg>"
    return out
  }

  private func legend(_ series: [ChartSeries]) -> String {
    var out = ""
    var lx = width - right
    for s in series.reversed() {
      let label = Markup.escape(s.name)
      lx -= Double(s.name.count) * 6.5 + 34
      out += #"<line x1="\#(Markup.coordinate(lx))" x2="\#(Markup.coordinate(lx + 20))" y1="16" y2="16" "#
        + #"stroke="\#(s.colour)" stroke-width="2"\#(s.dashed ? #" stroke-dasharray="6 4""# : "")/>"#
      out += #"<text class="legend" x="\#(Markup.coordinate(lx + 25))" y="20">\#(label)</text>"#
    }
    return out
  }
}

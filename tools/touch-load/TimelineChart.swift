import Foundation

/// One panel of the per-second timeline: seconds of the run along the bottom, one value per
/// second up, as lines (rates, latencies) or bars (drops, errors: each one matters, and a
/// line between two zero seconds would hide a single bad one). Panels of a page share their
/// seconds axis, so a latency spike lines up with the drops under it.
struct TimelineChart {
  var id: String
  var title: String
  var unit: String
  var series: [ChartSeries]
  var seconds: Int
  var bars = false
  /// Seconds before this were the ramp-up and warm-up: shaded, their latency not timed.
  var warmupEnd: Double = 0
  var width = 1140.0
  var height = 170.0

  private let left = 66.0
  private let right = 16.0
  private let top = 28.0
  private let bottom = 26.0

  func svg() -> String {
    let x = AxisScale(lower: 0, upper: Double(max(seconds, 1)), pixelLower: left, pixelUpper: width - right)
    let highest = series.flatMap { $0.points.compactMap(\.y) }.max() ?? 0
    let yTop = AxisScale.niceCeiling(max(highest, bars ? 1 : 0))
    let y = AxisScale(lower: 0, upper: yTop, pixelLower: height - bottom, pixelUpper: top)
    var out =
      #"<svg xmlns="http://www.w3.org/2000/svg" id="\#(Markup.escape(id))" class="chart timeline" "#
      + #"width="\#(Int(width))" height="\#(Int(height))" viewBox="0 0 \#(Int(width)) \#(Int(height))" role="img">"#
    out += #"<title>\#(Markup.escape(title))</title>"#
    out += #"<text class="chart-title" x="\#(Int(left))" y="18">\#(Markup.escape(title))\#(unit.isEmpty ? "" : " (\(Markup.escape(unit)))")</text>"#
    if warmupEnd > 0 {
      let w = x.pixel(min(warmupEnd, Double(max(seconds, 1)))) - left
      out += #"<rect class="warmup" x="\#(Int(left))" y="\#(Int(top))" width="\#(Markup.coordinate(w))" "#
        + #"height="\#(Int(height - top - bottom))"><title>ramp-up and warm-up: not timed</title></rect>"#
    }
    // Counts have whole ticks: "0.2 drops" means nothing.
    for v in AxisScale.ticks(upTo: yTop) where unit == "ms" || v == v.rounded() {
      let py = Markup.coordinate(y.pixel(v))
      out += #"<line class="grid" x1="\#(Int(left))" x2="\#(Int(width - right))" y1="\#(py)" y2="\#(py)"/>"#
      let label = unit == "ms" ? Markup.ms(v) : Markup.count(v)
      out += #"<text class="tick" x="\#(Int(left - 6))" y="\#(py)" text-anchor="end" dy="4">\#(label)</text>"#
    }
    for s in secondTicks() {
      let pxv = Markup.coordinate(x.pixel(Double(s)))
      out += #"<line class="grid" x1="\#(pxv)" x2="\#(pxv)" y1="\#(Int(top))" y2="\#(Int(height - bottom))"/>"#
      out += #"<text class="tick" x="\#(pxv)" y="\#(Int(height - bottom + 15))" text-anchor="middle">\#(s) s</text>"#
    }
    let slot = (x.pixel(1) - x.pixel(0)) / Double(max(series.count, 1))
    for (index, s) in series.enumerated() {
      if bars {
        out += #"<g class="series" data-series="\#(Markup.escape(s.name))" data-values="\#(values(s))" fill="\#(s.colour)">"#
        for p in s.points {
          guard let v = p.y, v > 0 else { continue }
          let top = y.pixel(v)
          // A bar at least 2 px high: one drop in a second must be visible.
          let h = max(2, y.pixel(0) - top)
          out += #"<rect x="\#(Markup.coordinate(x.pixel(p.x) + slot * Double(index)))" "#
            + #"y="\#(Markup.coordinate(y.pixel(0) - h))" width="\#(Markup.coordinate(max(slot - 0.5, 1)))" "#
            + #"height="\#(Markup.coordinate(h))"><title>\#(Markup.escape(s.name)), second \#(Int(p.x)): \#(Markup.count(v))</title></rect>"#
        }
        out += "</g>"
      } else {
        // Each second's value drawn at the middle of its second; gaps where it has none.
        var d = ""
        var pen = false
        for p in s.points {
          guard let v = p.y else {
            pen = false
            continue
          }
          d += "\(pen ? "L" : "M")\(Markup.coordinate(x.pixel(p.x + 0.5))) \(Markup.coordinate(y.pixel(v))) "
          pen = true
        }
        out += #"<path class="series" data-series="\#(Markup.escape(s.name))" data-points="\#(s.points.count)" "#
          + #"data-values="\#(values(s))" "#
          + #"d="\#(d.trimmingCharacters(in: .whitespaces))" fill="none" stroke="\#(s.colour)" stroke-width="1.8" "#
          + #"stroke-linejoin="round"\#(s.dashed ? #" stroke-dasharray="6 4""# : "")/>"#
      }
    }
    var lx = width - right
    for s in series.reversed() {
      lx -= Double(s.name.count) * 6.5 + 34
      out += #"<rect x="\#(Markup.coordinate(lx))" y="9" width="20" height="\#(s.dashed ? 2 : 3)" fill="\#(s.colour)"/>"#
      out += #"<text class="legend" x="\#(Markup.coordinate(lx + 25))" y="16">\#(Markup.escape(s.name))</text>"#
    }
    if series.allSatisfy({ s in s.points.allSatisfy { ($0.y ?? 0) == 0 } }) {
      out += #"<text class="empty" x="\#(Int((left + width - right) / 2))" y="\#(Int((top + height - bottom) / 2 + 4))" "#
        + #"text-anchor="middle">none</text>"#
    }
    out += "</svg>"
    return out
  }

  /// The series' values, one per second ("" for a gap), for a reader of the page's source
  /// and for checks against the JSON report.
  private func values(_ s: ChartSeries) -> String {
    s.points.map { $0.y.map { $0 == $0.rounded() ? String(Int($0)) : String($0) } ?? "" }.joined(separator: ",")
  }

  /// About ten round second marks whatever the run's length.
  private func secondTicks() -> [Int] {
    let step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].first { seconds / $0 <= 12 } ?? 3600
    return Array(stride(from: 0, through: seconds, by: step))
  }
}

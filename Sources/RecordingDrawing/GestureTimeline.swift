/// The bottom of the drawing: device time across, the number of fingers down, then one row
/// per kind of gesture with a bar from each gesture's first event to its last (a tick for a
/// tap or a swipe) and its gist beside it where there is room.
struct GestureTimeline {
  let content: RecordingContent
  let left: Double
  let top: Double
  let width: Double
  let colours: [String: String]
  let order: [String]

  let labelWidth = 112.0
  let rowHeight = 30.0
  let fingersHeight = 40.0
  let axisHeight = 34.0
  let titleHeight = 22.0

  /// The gesture kinds present, the known ones in a fixed order, any others after them.
  var kinds: [String] {
    let present = Set(content.gestures.map(\.gesture))
    return order.filter(present.contains) + present.subtracting(order).sorted()
  }

  var height: Double { titleHeight + fingersHeight + Double(max(kinds.count, 1)) * rowHeight + axisHeight }

  /// Seconds from the first frame to the last frame or gesture, at least one.
  var duration: Double {
    let lastGesture = content.gestures.map(\.end).max() ?? content.lastT
    return max(1, (max(content.lastT, lastGesture) - content.firstT) / 1000)
  }

  func x(_ t: Double) -> Double {
    left + labelWidth + (t - content.firstT) / 1000 / duration * (width - labelWidth - 10)
  }

  func svg() -> String {
    let plotLeft = left + labelWidth
    let plotRight = left + width - 10
    var out = #"<g id="timeline" font-size="12" fill='#1d2433'>"#
    out += #"<text x="\#(SVGText.number(left))" y="\#(SVGText.number(top + 14))" font-size="15" font-weight="600">"#
      + "Gestures the engine recognized, against device time</text>"
    var y = top + titleHeight
    // Grid: round seconds, about ten of them whatever the length.
    let step = [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600].first { duration / $0 <= 12 } ?? 1200
    let bottom = top + height - axisHeight
    var s = 0.0
    while s <= duration + 1e-9 {
      let gx = SVGText.number(plotLeft + s / duration * (plotRight - plotLeft))
      out += #"<line x1="\#(gx)" x2="\#(gx)" y1="\#(SVGText.number(y))" y2="\#(SVGText.number(bottom))" stroke='#e6e9ef'/>"#
      out += #"<text class="time" x="\#(gx)" y="\#(SVGText.number(bottom + 16))" text-anchor="middle" fill='#5b6475'>\#(SVGText.seconds(s))</text>"#
      s += step
    }
    out += #"<text x="\#(SVGText.number(plotRight))" y="\#(SVGText.number(bottom + 30))" text-anchor="end" font-size="11" fill='#5b6475'>"#
      + "device time since the first frame</text>"
    out += fingersDown(y: y, plotLeft: plotLeft)
    y += fingersHeight
    if kinds.isEmpty {
      out += #"<text x="\#(SVGText.number(plotLeft))" y="\#(SVGText.number(y + 19))" fill='#8a93a5'>no gesture recognized</text>"#
    }
    for kind in kinds {
      let colour = colours[kind] ?? "#5b6475"
      out += #"<line x1="\#(SVGText.number(left))" x2="\#(SVGText.number(plotRight))" y1="\#(SVGText.number(y))" y2="\#(SVGText.number(y))" stroke='#eef0f4'/>"#
      out += #"<text class="row" x="\#(SVGText.number(left))" y="\#(SVGText.number(y + 19))" font-weight="600" fill="\#(colour)">\#(SVGText.escape(kind))</text>"#
      let spans = content.gestures.filter { $0.gesture == kind }
      // The next span's start: a label is written only if it fits before it.
      for (i, g) in spans.enumerated() {
        let x0 = x(g.start)
        let x1 = max(x(g.end), x0 + 3)
        let missed = g.state == "cancelled" || g.state == "failed"
        let tip = "\(kind) \(g.label) \(g.state) at \(SVGText.seconds((g.start - content.firstT) / 1000))"
          + (g.end > g.start ? ", " + SVGText.fixed((g.end - g.start) / 1000, digits: 2) + " s" : "")
          + (g.touches > 1 ? ", \(g.touches) fingers" : "")
        out += #"<rect class="gesture" data-gesture="\#(SVGText.escape(kind))" data-state="\#(SVGText.escape(g.state))" "#
          + #"data-label="\#(SVGText.escape(g.label))" x="\#(SVGText.number(x0))" y="\#(SVGText.number(y + 7))" "#
          + #"width="\#(SVGText.number(x1 - x0))" height="16" rx="2" fill="\#(colour)" "#
          + #"fill-opacity="\#(missed ? "0.25" : "0.8")"\#(missed ? #" stroke="\#(colour)" stroke-dasharray="3 2""# : "")>"#
          + "<title>\(SVGText.escape(tip))</title></rect>"
        let room = (i + 1 < spans.count ? x(spans[i + 1].start) : plotRight + 40) - x1
        let text = g.label + (g.touches > 1 && kind != "pinch" && kind != "rotation" ? " ·\(g.touches)" : "")
        let textWidth = Double(text.count) * 7 + 6
        if !text.isEmpty, room > textWidth {
          out += #"<text class="gesture-label" x="\#(SVGText.number(x1 + 3))" y="\#(SVGText.number(y + 19))" font-size="11">\#(SVGText.escape(text))</text>"#
        } else if !text.isEmpty, x1 - x0 > textWidth {
          // No room after it (the next one, or the end, is near): inside the bar.
          out += #"<text class="gesture-label" x="\#(SVGText.number(x1 - 4))" y="\#(SVGText.number(y + 19))" font-size="11" "#
            + #"text-anchor="end" fill='#ffffff'>\#(SVGText.escape(text))</text>"#
        }
      }
      y += rowHeight
    }
    out += "</g>"
    return out
  }

  /// Fingers down over time, as a step line: a second finger is where a pinch can start.
  private func fingersDown(y: Double, plotLeft: Double) -> String {
    var events: [(t: Double, delta: Int)] = []
    for s in content.strokes {
      guard let first = s.points.first, let last = s.points.last else { continue }
      events.append((first.t, 1))
      events.append((s.end == nil ? max(last.t, content.lastT) : last.t, -1))
    }
    events.sort { $0.t != $1.t ? $0.t < $1.t : $0.delta > $1.delta }
    let most = max(1, events.reduce((0, 0)) { acc, e in (acc.0 + e.delta, max(acc.1, acc.0 + e.delta)) }.1)
    let base = y + fingersHeight - 8
    func fy(_ n: Int) -> Double { base - Double(n) / Double(most) * (fingersHeight - 14) }
    var d = "M\(SVGText.number(plotLeft)) \(SVGText.number(base))"
    var down = 0
    for e in events {
      let ex = SVGText.number(x(e.t))
      d += " L\(ex) \(SVGText.number(fy(down)))"
      down += e.delta
      d += " L\(ex) \(SVGText.number(fy(down)))"
    }
    d += " L\(SVGText.number(x(content.firstT + duration * 1000))) \(SVGText.number(fy(down)))"
    var out = #"<text class="row" x="\#(SVGText.number(left))" y="\#(SVGText.number(y + 22))" fill='#5b6475'>fingers (max \#(most))</text>"#
    out += #"<path id="fingers-down" data-max="\#(most)" d="\#(d)" fill="none" stroke='#5b6475' stroke-width="1.5"/>"#
    return out
  }
}

/// The layout and drawing of one `RecordingContent`: the surface with its trails at the top
/// left, the facts at the top right, the gesture timeline across the bottom.
struct RecordingPicture {
  let content: RecordingContent

  init(_ content: RecordingContent) {
    self.content = content
  }

  static let fingerColours = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
  ]
  static let gestureColours = [
    "tap": "#0077b6", "longpress": "#b8860b", "pan": "#4d8b31", "pinch": "#c9184a", "rotation": "#7b2cbf",
    "swipe": "#e85d04",
  ]
  static let gestureOrder = ["tap", "longpress", "pan", "swipe", "pinch", "rotation"]

  let width = 1000.0
  let margin = 20.0
  let surfaceTop = 56.0
  /// The surface is drawn at most this tall and wide (a phone is tall, a tablet wide).
  let surfaceBox = (width: 440.0, height: 520.0)

  /// Many touches (a recording of minutes) get finer trails and smaller marks, so the
  /// picture stays a picture of where fingers went rather than a heap of dots.
  var busy: Bool { content.strokes.count > 60 }

  var scale: Double {
    min(surfaceBox.width / max(content.width, 1), surfaceBox.height / max(content.height, 1))
  }

  /// A colour per finger, in the order fingers first touched: ids are arbitrary numbers
  /// (a browser's pointer ids), so their order, not their value, picks the colour.
  var fingerColour: [Int: String] {
    var out: [Int: String] = [:]
    for s in content.strokes where out[s.finger] == nil {
      out[s.finger] = Self.fingerColours[out.count % Self.fingerColours.count]
    }
    return out
  }

  func svg() -> String {
    let surfaceHeight = content.height * scale
    let timelineTop = surfaceTop + surfaceHeight + 50
    let timeline = GestureTimeline(
      content: content, left: margin, top: timelineTop, width: width - 2 * margin,
      colours: Self.gestureColours, order: Self.gestureOrder)
    let height = timelineTop + timeline.height + margin
    var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    out += #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(Int(width))" height="\#(Int(height.rounded(.up)))" "#
      + #"viewBox="0 0 \#(Int(width)) \#(Int(height.rounded(.up)))" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif">"#
    let title = "Recording \(content.session), connection \(content.connection)"
    out += "<title>\(SVGText.escape(title))</title>"
    out += #"<rect width="100%" height="100%" fill='#ffffff'/>"#
    out += #"<text x="\#(Int(margin))" y="32" font-size="20" font-weight="600" fill='#1d2433'>\#(SVGText.escape(title))</text>"#
    out += surface()
    out += facts(x: margin + content.width * scale + 40)
    out += timeline.svg()
    out += "</svg>\n"
    return out
  }

  private func surface() -> String {
    let s = scale
    let w = content.width * s
    let h = content.height * s
    func px(_ x: Double) -> String { SVGText.number(margin + x * s) }
    func py(_ y: Double) -> String { SVGText.number(surfaceTop + y * s) }
    var out = #"<g id="surface" data-width="\#(SVGText.number(content.width))" data-height="\#(SVGText.number(content.height))">"#
    out += #"<rect x="\#(Int(margin))" y="\#(Int(surfaceTop))" width="\#(SVGText.number(w))" height="\#(SVGText.number(h))" "#
      + #"rx="10" fill='#f4f5f8' stroke='#8a93a5' stroke-width="1.5"/>"#
    // Regions as they were at the start; where they ended, dashed, if they moved.
    for (regions, final) in [(content.firstRegions, false), (content.lastRegions, true)] {
      if final && regions == content.firstRegions { continue }
      for r in regions.reversed() {
        let fill = r.id == "red" ? "#e63946" : r.id.hasPrefix("yellow") ? "#f4b400" : "#6c8ebf"
        out += #"<rect class="region\#(final ? " final" : "")" data-region="\#(SVGText.escape(r.id))" x="\#(px(r.x))" y="\#(py(r.y))" "#
          + #"width="\#(SVGText.number(r.width * s))" height="\#(SVGText.number(r.height * s))" "#
          + (final
            ? #"fill="none" stroke="\#(fill)" stroke-width="1.5" stroke-dasharray="5 4"/>"#
            : #"fill="\#(fill)" fill-opacity="0.22" stroke="\#(fill)" stroke-width="1"/>"#)
        if !final {
          out += #"<text x="\#(px(r.x + 4 / s))" y="\#(py(r.y + 14 / s))" font-size="11" fill='#5b6475'>\#(SVGText.escape(r.id))</text>"#
        }
      }
    }
    let colours = fingerColour
    out += #"<g id="trails" fill="none" stroke-linecap="round" stroke-linejoin="round">"#
    for stroke in content.strokes {
      let colour = colours[stroke.finger] ?? "#000000"
      // Points closer than a pixel to the last one drawn add nothing to the picture.
      var kept: [(Double, Double)] = []
      for (i, p) in stroke.points.enumerated() {
        let q = (margin + p.x * s, surfaceTop + p.y * s)
        if let last = kept.last, i < stroke.points.count - 1, abs(q.0 - last.0) + abs(q.1 - last.1) < 1 { continue }
        kept.append(q)
      }
      let points = kept.map { "\(SVGText.number($0.0)),\(SVGText.number($0.1))" }.joined(separator: " ")
      out += #"<polyline class="trail" data-finger="\#(stroke.finger)" data-points="\#(stroke.points.count)" points="\#(points)" "#
        + #"stroke="\#(colour)" stroke-width="\#(busy ? "1.4" : "2.2")" stroke-opacity="\#(busy ? "0.65" : "0.85")"/>"#
    }
    out += "</g>"
    // The marks on top of every trail: where each touch began (filled) and ended (hollow; a
    // cross when it was cancelled).
    out += #"<g id="marks">"#
    for stroke in content.strokes {
      let colour = colours[stroke.finger] ?? "#000000"
      guard let first = stroke.points.first, let last = stroke.points.last else { continue }
      out += #"<circle class="began" data-finger="\#(stroke.finger)" cx="\#(px(first.x))" cy="\#(py(first.y))" r="\#(busy ? "2.5" : "4.5")" "#
        + #"fill="\#(colour)" stroke='#ffffff' stroke-width="\#(busy ? "0.6" : "1.2")"><title>finger \#(stroke.finger) began at \#(SVGText.seconds(relative(first.t)))</title></circle>"#
      switch stroke.end {
      case "ended":
        out += #"<circle class="ended" data-finger="\#(stroke.finger)" cx="\#(px(last.x))" cy="\#(py(last.y))" r="\#(busy ? "2.5" : "4.5")" "#
          + #"fill='#ffffff' stroke="\#(colour)" stroke-width="\#(busy ? "1.2" : "2")"><title>finger \#(stroke.finger) ended at \#(SVGText.seconds(relative(last.t)))</title></circle>"#
      case "cancelled":
        let x = margin + last.x * s
        let y = surfaceTop + last.y * s
        out += #"<path class="cancelled" data-finger="\#(stroke.finger)" d="M\#(SVGText.number(x - 4)) \#(SVGText.number(y - 4)) L\#(SVGText.number(x + 4)) \#(SVGText.number(y + 4)) M\#(SVGText.number(x - 4)) \#(SVGText.number(y + 4)) L\#(SVGText.number(x + 4)) \#(SVGText.number(y - 4))" "#
          + #"stroke="\#(colour)" stroke-width="2.2"><title>finger \#(stroke.finger) cancelled</title></path>"#
      default:
        break
      }
    }
    out += "</g></g>"
    return out
  }

  /// Seconds from the first frame.
  func relative(_ t: Double) -> Double { (t - content.firstT) / 1000 }

  private func facts(x: Double) -> String {
    var lines: [String] = []
    lines.append("\(content.deviceName), \(SVGText.number(content.width)) × \(SVGText.number(content.height)) pt")
    lines.append("scene: \(content.sceneSummary ?? content.scene ?? "none")")
    let duration = max(0, relative(content.lastT))
    lines.append("\(content.frames) frames over \(SVGText.fixed(duration, digits: 1)) s of device time")
    let fingers = Set(content.strokes.map(\.finger)).count
    lines.append("\(content.strokes.count) touches by \(fingers) finger id\(fingers == 1 ? "" : "s")")
    var counts: [String: Int] = [:]
    for g in content.gestures where g.state != "cancelled" && g.state != "failed" { counts[g.gesture, default: 0] += 1 }
    let gestureLine = counts.isEmpty
      ? "no gesture recognized"
      : counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        .joined(separator: ", ")
    lines.append("gestures: " + gestureLine)
    var out = #"<g id="facts" font-size="13" fill='#1d2433'>"#
    var y = surfaceTop + 14
    for text in lines {
      out += #"<text x="\#(SVGText.number(x))" y="\#(SVGText.number(y))">\#(SVGText.escape(text))</text>"#
      y += 22
    }
    // The key: what the marks mean and which colour is which finger.
    y += 10
    out += #"<circle cx="\#(SVGText.number(x + 5))" cy="\#(SVGText.number(y - 4))" r="4.5" fill='#5b6475'/>"#
    out += #"<text x="\#(SVGText.number(x + 16))" y="\#(SVGText.number(y))">began</text>"#
    out += #"<circle cx="\#(SVGText.number(x + 75))" cy="\#(SVGText.number(y - 4))" r="4.5" fill='#ffffff' stroke='#5b6475' stroke-width="2"/>"#
    out += #"<text x="\#(SVGText.number(x + 86))" y="\#(SVGText.number(y))">ended</text>"#
    out += #"<path d="M\#(SVGText.number(x + 141)) \#(SVGText.number(y - 8)) l8 8 m-8 0 l8 -8" stroke='#5b6475' stroke-width="2"/>"#
    out += #"<text x="\#(SVGText.number(x + 156))" y="\#(SVGText.number(y))">cancelled</text>"#
    y += 26
    let colours = fingerColour
    var fx = x
    for (finger, colour) in colours.sorted(by: { order($0.key) < order($1.key) }).prefix(12) {
      out += #"<rect x="\#(SVGText.number(fx))" y="\#(SVGText.number(y - 9))" width="18" height="4" fill="\#(colour)"/>"#
      out += #"<text class="finger-key" x="\#(SVGText.number(fx + 22))" y="\#(SVGText.number(y - 2))">\#(finger)</text>"#
      fx += 28 + Double(String(finger).count) * 8
      if fx > width - margin - 40 {
        fx = x
        y += 20
      }
    }
    out += #"<text x="\#(SVGText.number(x))" y="\#(SVGText.number(y + 22))" font-size="11" fill='#5b6475'>finger ids (colour per finger); regions as at the start, dashed where they ended</text>"#
    out += "</g>"
    return out
  }

  /// A finger's place in the order fingers first touched.
  private func order(_ finger: Int) -> Int {
    content.strokes.firstIndex { $0.finger == finger } ?? 0
  }
}

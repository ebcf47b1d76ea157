/// One line of a chart: its name (the legend, and the `data-series` of its path), colour,
/// dash pattern (the second run of a comparison is dashed), and points in data units.
/// A nil value is a gap: a second with no samples is not a zero latency.
struct ChartSeries {
  var name: String
  var colour: String
  var dashed = false
  var points: [(x: Double, y: Double?)]
}

/// The frame of touch-load's HTML pages: one self-contained file (styles inline, charts as
/// inline SVG, no script, font or request of any kind), readable offline and as an attachment.
enum PageShell {
  static func html(title: String, body: String) -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8"/>
    <meta name="viewport" content="width=device-width, initial-scale=1"/>
    <meta name="generator" content="touch-load"/>
    <title>\(Markup.escape(title))</title>
    <style>\(css)</style>
    </head>
    <body>
    \(body)
    </body>
    </html>

    """
  }

  static let css = """
    body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2433;
      background: #f6f7f9; margin: 0; padding: 20px 28px 40px; }
    h1 { font-size: 22px; margin: 0 0 4px; }
    h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d9dde5; padding-bottom: 4px; }
    .sub { color: #5b6475; margin: 0 0 14px; }
    .verdict { font-size: 16px; font-weight: 600; padding: 10px 14px; border-radius: 6px; margin: 10px 0 14px; }
    .verdict.clean { background: #e3f4e6; border-left: 6px solid #2e9e48; }
    .verdict.problems { background: #fde8e6; border-left: 6px solid #d0342c; }
    .figures { display: flex; flex-wrap: wrap; gap: 10px; margin: 0 0 10px; }
    .figure { background: #fff; border: 1px solid #dde1e8; border-radius: 6px; padding: 8px 14px; min-width: 130px; }
    .figure .value { font-size: 22px; font-weight: 600; }
    .figure .what { color: #5b6475; font-size: 12px; }
    table { border-collapse: collapse; background: #fff; margin: 6px 0; }
    th, td { border: 1px solid #dde1e8; padding: 3px 9px; text-align: left; vertical-align: top; }
    td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
    th { background: #eef0f4; font-weight: 600; }
    td.worse { color: #b3261e; font-weight: 600; }
    td.better { color: #1e7b34; font-weight: 600; }
    .charts { display: flex; flex-wrap: wrap; gap: 12px; }
    svg.chart { background: #fff; border: 1px solid #dde1e8; border-radius: 6px; display: block; margin: 0 0 8px; }
    svg .grid { stroke: #e6e9ef; stroke-width: 1; }
    svg .tick { font-size: 11px; fill: #5b6475; }
    svg .chart-title { font-size: 13px; font-weight: 600; fill: #1d2433; }
    svg .axis-label { font-size: 11px; fill: #5b6475; }
    svg .legend { font-size: 12px; fill: #1d2433; }
    svg .mark-label { font-size: 11px; fill: #1d2433; font-weight: 600; }
    svg .empty { font-size: 14px; fill: #8a93a5; }
    svg .warmup { fill: #eef0f4; }
    .muted { color: #5b6475; }
    code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
    ul.warnings li { color: #8a4b00; }
    """
}

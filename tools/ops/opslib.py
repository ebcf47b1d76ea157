"""What tools/ops/check.py and tools/ops/e2e.py share: the rule and dashboard files, the
scaling of the rules' durations for the end-to-end test, and the metric names a PromQL
expression reads. Debian's /usr/bin/python3 with python3-yaml."""

import json
import pathlib
import re

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
OPS = ROOT / "docs" / "ops"
RULES = OPS / "touchrelay.rules.yml"
TESTS = OPS / "tests" / "touchrelay.rules.test.yml"
DASHBOARD = OPS / "grafana" / "touchrelay-dashboard.json"

# Panel types Grafana ships with (no plugin to install).
BUILTIN_PANELS = {"row", "timeseries", "stat", "gauge", "bargauge", "table", "text", "state-timeline",
                  "status-history", "heatmap", "histogram", "barchart", "piechart", "alertlist", "dashlist"}

# Series Prometheus makes itself, beside what a target exports.
PROMETHEUS_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped",
                     "scrape_samples_post_metric_relabeling", "scrape_series_added", "ALERTS", "ALERTS_FOR_STATE"}


def load_yaml(path):
    with open(path) as f:
        return yaml.safe_load(f)


def rules_of(*paths):
    """Every rule of the files: (group name, rule dict)."""
    out = []
    for path in paths:
        for group in load_yaml(path)["groups"]:
            for rule in group["rules"]:
                out.append((group["name"], rule))
    return out


def alerts_of(*paths):
    return [r for _, r in rules_of(*paths) if "alert" in r]


def records_of(*paths):
    return {r["record"] for _, r in rules_of(*paths) if "record" in r}


# MARK: durations

UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000, "y": 31_536_000_000}
DURATION = re.compile(r"^(?:\d+(?:ms|[smhdwy]))+$")


def duration_ms(text):
    """A Prometheus duration ('1h30m', '5m', '500ms') in milliseconds."""
    if not DURATION.match(text):
        raise ValueError(f"not a Prometheus duration: {text!r}")
    return sum(int(n) * UNITS_MS[u] for n, u in re.findall(r"(\d+)(ms|[smhdwy])", text))


def format_ms(ms):
    """Milliseconds as a Prometheus duration, largest units first ('24m', '1s', '1s500ms')."""
    out = ""
    for unit in ("d", "h", "m", "s", "ms"):
        n, ms = divmod(ms, UNITS_MS[unit])
        if n:
            out += f"{n}{unit}"
    return out or "0s"


RANGE = re.compile(r"\[(\w+)(:\w*)?\]")
OFFSET = re.compile(r"\boffset\s+(\w+)")


def scale_expr(expr, factor, floor_ms=None, ranges=None):
    """`expr` with every range and offset divided by `factor`; each scaled range is appended
    to `ranges` (ms) if given, and raises if under `floor_ms`."""
    def scaled(text):
        ms = duration_ms(text)
        if ms % factor:
            raise ValueError(f"{text} is not a whole number of milliseconds divided by {factor}")
        return ms // factor

    def on_range(m):
        ms = scaled(m.group(1))
        if floor_ms and ms < floor_ms:
            raise ValueError(f"[{m.group(1)}] scaled by 1/{factor} is {ms} ms, under {floor_ms} ms "
                             "(fewer samples than a rate needs at the test's scrape interval)")
        if ranges is not None:
            ranges.append(ms)
        step = m.group(2) or ""
        if step not in ("", ":"):
            step = ":" + format_ms(scaled(step[1:]))
        return f"[{format_ms(ms)}{step}]"

    expr = RANGE.sub(on_range, expr)
    return OFFSET.sub(lambda m: "offset " + format_ms(scaled(m.group(1))), expr)


def scaled_rules(path, factor, floor_ms):
    """The rule file at `path` with every `for:`, range and offset divided by `factor` (the
    end-to-end test's time-lapse), as a YAML string."""
    doc = load_yaml(path)
    for group in doc["groups"]:
        if "interval" in group:
            group["interval"] = format_ms(duration_ms(group["interval"]) // factor)
        for rule in group["rules"]:
            rule["expr"] = scale_expr(rule["expr"], factor, floor_ms)
            if "for" in rule:
                rule["for"] = format_ms(duration_ms(rule["for"]) // factor)
    return yaml.safe_dump(doc, sort_keys=False)


def resolve_window_ms(expr, records=None):
    """How far back `expr` looks at what happens now: its longest range or offset that is not
    a range moved back by an offset (a baseline), and those of the recording rules it reads
    (`records`: name -> expression). An alert is resolved within about this once its cause ends."""
    windows = []
    for m in re.finditer(r"\[(\w+)(?::\w*)?\](\s*offset\s+\w+)?|\boffset\s+(\w+)", expr):
        if m.group(1) and not m.group(2):
            windows.append(duration_ms(m.group(1)))
        elif m.group(3) and not expr[:m.start()].rstrip().endswith("]"):
            windows.append(duration_ms(m.group(3)))
    for name, body in (records or {}).items():
        if re.search(r"(?<![\w:])" + re.escape(name) + r"(?![\w:])", expr):
            windows.append(resolve_window_ms(body))
    return max(windows, default=0)


# MARK: the metric names of an expression

KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left",
            "group_right", "inf", "nan", "atan2", "start", "end"}
LABEL_LISTS = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")


def metric_names(expr):
    """The metric names `expr` selects (the names before `{`, or alone), without its strings,
    label matchers, label lists, ranges, numbers and function names."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    e = LABEL_LISTS.sub(" ", e)
    e = re.sub(r"\boffset\s+\w+", " ", e)
    e = re.sub(r"(?<![\w:])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?:ms|[smhdwy])?(?![\w:])", " ", e)
    names = set()
    for m in re.finditer(r"[A-Za-z_:][\w:]*", e):
        rest = e[m.end():].lstrip()
        if rest.startswith("(") or m.group(0) in KEYWORDS:
            continue
        names.add(m.group(0))
    return names


def exported_names(scrape_text):
    """The series names a /metrics text has: each `# TYPE` name, with _bucket, _sum and
    _count for a histogram (and _sum, _count for a summary), and every sample's name."""
    names = set()
    for line in scrape_text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()[:4]
            names.add(name)
            if kind == "histogram":
                names |= {name + "_bucket", name + "_sum", name + "_count"}
            elif kind == "summary":
                names |= {name + "_sum", name + "_count"}
        elif line and not line.startswith("#"):
            names.add(re.match(r"[A-Za-z_:][\w:]*", line).group(0))
    return names


# MARK: the dashboard

def load_dashboard():
    with open(DASHBOARD) as f:
        return json.load(f)


def dashboard_panels(dash):
    """Every panel, rows' collapsed panels included."""
    out = []
    for p in dash.get("panels", []):
        out.append(p)
        out.extend(p.get("panels", []))
    return out


def dashboard_queries(dash):
    """(where, PromQL) of every panel target and of every query variable (the selector
    inside Grafana's label_values(...))."""
    out = []
    for p in dashboard_panels(dash):
        for t in p.get("targets", []):
            out.append((f"panel {p.get('id')} {p.get('title')!r} {t.get('refId')}", t["expr"]))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"\s*label_values\((.*),\s*\w+\)\s*", q, re.S)
        out.append((f"variable {v['name']}", m.group(1) if m else q))
    return out


def grafana_expand(expr, rate_interval, job, node):
    """An expression as Grafana sends it to Prometheus, for one node."""
    return (expr.replace("$__rate_interval", rate_interval).replace("$job", job).replace("$node", node))

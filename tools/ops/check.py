#!/usr/bin/python3
"""The checks of docs/ops that need no server running:

    /usr/bin/python3 tools/ops/check.py [--mutations]

- `promtool check rules` on the rule file, `promtool check config` on the example
  prometheus.yml, and `promtool test rules` on the unit tests;
- every alert has a severity (critical or warning), a summary, a description and a
  runbook_url naming a section of docs/ops/README.md, and at least one unit test in which
  it fires and one in which it does not;
- the Grafana dashboard is valid JSON, its panels are of types Grafana ships with (and
  named in its __requires), their ids are unique, every panel and query uses the
  dashboard's data source variable, every variable an expression names is defined, and the
  per-node row repeats over the node variable.

--mutations also breaks each alert in a copy of the rules, twice: made never to fire (a
test where it should fire must then fail) and made to fire always (a test where it should
not fire must then fail), each against the alert's own tests.

Prints one line per check and `N passed, M failed`; exits 1 on any failure. That the
dashboard's expressions parse and name exported metrics is checked against a live
Prometheus and live nodes by tools/ops/e2e.py.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # tools/relaytools.py

import opslib  # noqa: E402
import relaytools as rt  # noqa: E402

PROMTOOL = "/usr/bin/promtool"


def promtool(*args):
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True)


def github_anchor(heading):
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def check_rules():
    out = promtool("check", "rules", str(opslib.RULES))
    rt.check("promtool check rules", out.returncode == 0, out.stdout + out.stderr)
    out = promtool("check", "config", str(opslib.OPS / "prometheus.yml"))
    rt.check("promtool check config docs/ops/prometheus.yml", out.returncode == 0, out.stdout + out.stderr)
    out = promtool("test", "rules", str(opslib.TESTS))
    rt.check("promtool test rules (the unit tests, on the rules' real durations)", out.returncode == 0,
             out.stdout[-4000:] + out.stderr[-2000:])

    readme = (opslib.OPS / "README.md").read_text()
    anchors = {github_anchor(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", readme, re.M)}
    alerts = opslib.alerts_of(opslib.RULES)
    problems = []
    for a in alerts:
        name = a["alert"]
        if a.get("labels", {}).get("severity") not in ("critical", "warning"):
            problems.append(f"{name}: severity {a.get('labels', {}).get('severity')!r}")
        notes = a.get("annotations", {})
        for key in ("summary", "description", "runbook_url"):
            if not notes.get(key, "").strip():
                problems.append(f"{name}: no {key}")
        url = notes.get("runbook_url", "")
        if url != f"docs/ops/README.md#{name.lower()}" or name.lower() not in anchors:
            problems.append(f"{name}: runbook_url {url!r} is not a section '### {name}' of docs/ops/README.md")
    rt.check(f"the {len(alerts)} alerts have a severity, a summary, a description and a runbook section",
             not problems, "; ".join(problems))

    firing, quiet = set(), set()
    for group in opslib.load_yaml(opslib.TESTS)["tests"]:
        for case in group.get("alert_rule_test", []):
            (firing if case.get("exp_alerts") else quiet).add(case["alertname"])
    names = {a["alert"] for a in alerts}
    rt.check("every alert has a unit test where it fires", not names - firing, f"none for {sorted(names - firing)}")
    rt.check("every alert has a unit test where it does not fire", not names - quiet, f"none for {sorted(names - quiet)}")
    rt.check("the unit tests name only alerts of the rules", not (firing | quiet) - names,
             f"unknown: {sorted((firing | quiet) - names)}")


def check_dashboard():
    try:
        dash = opslib.load_dashboard()
    except ValueError as e:
        rt.check("the dashboard is valid JSON", False, str(e))
        return
    rt.check("the dashboard is valid JSON", True)
    panels = opslib.dashboard_panels(dash)
    types = {p.get("type") for p in panels}
    rt.check(f"the dashboard's {len(panels)} panels are of Grafana's built-in types", types <= opslib.BUILTIN_PANELS,
             f"not built in: {sorted(types - opslib.BUILTIN_PANELS)}")
    required = {r["id"] for r in dash.get("__requires", []) if r.get("type") == "panel"}
    rt.check("__requires names the panel types used, and only those", required == types,
             f"used {sorted(types)}, required {sorted(required)}")
    plugins = {r["id"] for r in dash.get("__requires", []) if r.get("type") == "datasource"}
    rt.check("the only data source plugin is Prometheus", plugins == {"prometheus"}, f"{sorted(plugins)}")
    ids = [p.get("id") for p in panels]
    rt.check("panel ids are unique", len(ids) == len(set(ids)) and None not in ids, f"{ids}")
    rt.check("every panel has a place (gridPos)", all({"x", "y", "w", "h"} <= set(p.get("gridPos", {})) for p in panels))

    variables = {v["name"]: v for v in dash.get("templating", {}).get("list", [])}
    ds = variables.get("datasource", {})
    rt.check("the data source is a variable of Prometheus data sources", ds.get("type") == "datasource" and ds.get("query") == "prometheus",
             f"{ds}")
    wrong_ds = [p.get("title") for p in panels if p.get("type") != "row"
                and (p.get("datasource", {}).get("uid") != "${datasource}"
                     or any(t.get("datasource", {}).get("uid") != "${datasource}" for t in p.get("targets", [])))]
    wrong_ds += [f"variable {n}" for n, v in variables.items() if v.get("type") == "query" and v.get("datasource", {}).get("uid") != "${datasource}"]
    rt.check("every panel, query and variable uses ${datasource}", not wrong_ds, f"{wrong_ds}")

    queries = opslib.dashboard_queries(dash)
    builtin_vars = {"__rate_interval", "__interval", "__range"}
    undefined = sorted({f"{where}: ${v}" for where, expr in queries for v in re.findall(r"\$(\w+)", expr)
                        if v not in variables and v not in builtin_vars})
    rt.check(f"the {len(queries)} expressions use only defined variables", not undefined, "; ".join(undefined))
    no_expr = [p.get("title") for p in panels if p.get("type") not in ("row", "text") and not p.get("targets")]
    rt.check("every panel but rows has a query", not no_expr, f"{no_expr}")
    repeated = [p for p in panels if p.get("type") == "row" and p.get("repeat")]
    node = variables.get("node", {})
    rt.check("a row repeats per node (the node variable, multi-valued, from touchrelay_node_info)",
             len(repeated) == 1 and repeated[0]["repeat"] == "node" and node.get("multi")
             and "touchrelay_node_info" in str(node.get("query")), f"rows {[(p.get('title'), p.get('repeat')) for p in repeated]}")
    per_node = [p for p in dash["panels"] if p.get("gridPos", {}).get("y", 0) > repeated[0]["gridPos"]["y"]] if repeated else []
    not_per_node = [p.get("title") for p in per_node if any('node=~"$node"' not in t["expr"] for t in p.get("targets", []))]
    rt.check("every panel of the node's row reads only that node", not not_per_node, f"{not_per_node}")


def check_mutations():
    """Each alert broken in a copy: never firing, then always firing; the unit tests must fail,
    and in a test that expects it to fire or not to fire respectively."""
    alerts = [a["alert"] for a in opslib.alerts_of(opslib.RULES)]
    text = opslib.RULES.read_text()
    tests = opslib.load_yaml(opslib.TESTS)
    with tempfile.TemporaryDirectory() as work:
        os.mkdir(os.path.join(work, "tests"))
        for name in alerts:
            # Only the alert's own tests: they must catch it.
            own = dict(tests, tests=[g for g in tests["tests"]
                                     if any(c["alertname"] == name for c in g.get("alert_rule_test", []))])
            with open(os.path.join(work, "tests", opslib.TESTS.name), "w") as f:
                f.write(opslib.yaml.safe_dump(own, sort_keys=False))
            for how, expr in (("never fires", "absent(vector(1))"), ("always fires", "vector(1)")):
                doc = opslib.load_yaml(opslib.RULES)
                for group in doc["groups"]:
                    for rule in group["rules"]:
                        if rule.get("alert") == name:
                            rule["expr"] = expr
                with open(os.path.join(work, "touchrelay.rules.yml"), "w") as f:
                    f.write(opslib.yaml.safe_dump(doc, sort_keys=False))
                out = promtool("test", "rules", os.path.join(work, "tests", opslib.TESTS.name))
                failures = re.findall(r"alertname: (\w+), time: [^,]*, *\n\s*exp:(\[\]|\[\n)", out.stdout + out.stderr)
                caught = [exp for alert, exp in failures if alert == name]
                wanted = "[\n" if how == "never fires" else "[]"
                rt.check(f"{name} made so it {how}: a unit test fails", out.returncode != 0 and wanted in caught,
                         f"exit {out.returncode}; failures {failures}")
    assert text == opslib.RULES.read_text()


def main():
    check_rules()
    check_dashboard()
    if "--mutations" in sys.argv[1:]:
        check_mutations()
    rt.finish()


if __name__ == "__main__":
    main()

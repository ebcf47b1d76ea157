#!/usr/bin/python3
"""The alerts and the dashboard against a real Prometheus scraping real touch-relay nodes.

    /usr/bin/python3 tools/ops/e2e.py [.build/debug/touch-relay] [--rules DIR]

Starts on loopback, on free ports: a redis-server, two touch-relay nodes with --redis
(relay-a, relay-b; --max-connections and --max-sessions 10, --max-fingers 20), and Debian's prometheus
scraping both every second with docs/ops' rule files time-lapsed: every `for:`, range and
offset divided by 60 (tools/ops/opslib.py, scaled_rules), so that 5 minutes of a rate are
5 seconds; a threshold on a rate is the same at any speed. Rules are evaluated every 250 ms.
The near-limit alerts divide by each node's own limits (touchrelay_limit on its /metrics).

Then, watching Prometheus' /api/v1/alerts (firing alerts must appear within their scaled
`for:` plus two scrape intervals of the moment the fault shows
on the nodes' /metrics, and be gone within how far back they look (opslib.resolve_window_ms)
plus the same after the fault ends):
  0. quiet: nothing pending or firing;
  1. a flood: on relay-a two sources of 20 fingers at their frame rate and a raw observer
     that reads a quarter of what they make, and a source of another session sending `frames` as
     fast as the socket takes them; on relay-b a raw observer of the first session reading
     all and 8 idle observers of sessions of their own; a message on the nodes' Redis
     channel that no node sent:
     TouchRelayObserversDroppingMessages, TouchRelayReadPauses and
     TouchRelayErrorsAboveBaseline (rate_limited) on relay-a, TouchRelayConnectionsNearLimit
     and TouchRelaySessionsNearLimit on relay-b, TouchRelayBusMalformed on both;
     then the dashboard: every expression of it (for each node) is accepted by Prometheus'
     query endpoint, each returns data for some node, and names only metrics the nodes'
     /metrics have (or Prometheus' own series); the rules' expressions likewise;
  2. Redis killed: TouchRelayBusDown on both nodes, and neither TouchRelayBusNodeLost,
     TouchRelayBusGaps nor TouchRelayBusPublishDropped; Redis started again: resolved;
  3. relay-b killed (SIGKILL): TouchRelayDown for relay-b, TouchRelayBusNodeLost on relay-a;
     relay-b started again: resolved (one restart: TouchRelayRestarting stays quiet);
  4. relay-b killed and started twice more, each start scraped: TouchRelayRestarting for
     relay-b (which lasts its scaled hour: the test ends there).
Prints one line per check and `N passed, M failed`; exits 1 on any failure. --rules DIR
takes the rule files from DIR instead of docs/ops (to see a broken rule fail this test).
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # tools/relaytools.py

import opslib  # noqa: E402
import relaytools as rt  # noqa: E402

SCALE = 60
SCRAPE_S = 1.0
EVAL_S = 0.25
assert EVAL_S * 4 <= SCRAPE_S, "budget_fire leaves half a scrape interval of margin"
LIMIT = 10  # --max-connections and --max-sessions of both nodes
FINGERS = 20  # fingers per flooded frame (--max-fingers): big messages fill the kernel's buffers soon
PROMETHEUS = "/usr/bin/prometheus"
REDIS = "/usr/bin/redis-server"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Lab:
    def __init__(self, relay, rules_dir, work):
        self.relay = relay
        self.work = work
        self.procs = []
        self.redis_port = free_port()
        self.ports = {"relay-a": free_port(), "relay-b": free_port()}
        self.prom_port = free_port()
        self.nodes = {}
        self.redis = None
        self.t0 = time.monotonic()
        rules = [r for _, r in opslib.rules_of(os.path.join(rules_dir, "touchrelay.rules.yml"))]
        self.alerts = {r["alert"]: r for r in rules if "alert" in r}
        self.records = {r["record"]: r["expr"] for r in rules if "record" in r}
        self.rules_dir = rules_dir

    def log(self, text):
        print(f"[{time.monotonic() - self.t0:6.1f} s] {text}", flush=True)

    # MARK: processes

    def start_redis(self):
        self.redis = subprocess.Popen(
            [REDIS, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(self.redis)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.redis_port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def start_node(self, name):
        err = open(os.path.join(self.work, f"{name}.err"), "a")
        p = subprocess.Popen(
            [self.relay, "--host", "127.0.0.1", "--port", str(self.ports[name]), "--node-id", name,
             "--redis", f"redis://127.0.0.1:{self.redis_port}", "--log-level", "warning",
             "--max-connections", str(LIMIT), "--max-sessions", str(LIMIT), "--max-fingers", str(FINGERS)],
            stdout=subprocess.PIPE, stderr=err, text=True)
        line = p.stdout.readline()
        if "ws://" not in line:
            raise RuntimeError(f"{name} did not start: {line!r} (see {err.name})")
        threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
        self.procs.append(p)
        self.nodes[name] = p

    def write_config(self):
        path = os.path.join(self.work, "scaled-touchrelay.rules.yml")
        with open(path, "w") as f:
            f.write(opslib.scaled_rules(os.path.join(self.rules_dir, "touchrelay.rules.yml"), SCALE,
                                        floor_ms=int(4 * SCRAPE_S * 1000)))
        rules = [path]
        config = {
            "global": {"scrape_interval": f"{int(SCRAPE_S * 1000)}ms", "scrape_timeout": f"{int(SCRAPE_S * 900)}ms",
                       "evaluation_interval": f"{int(EVAL_S * 1000)}ms"},
            "rule_files": rules,
            "scrape_configs": [{"job_name": "touch-relay", "static_configs": [
                {"targets": [f"127.0.0.1:{p}" for p in self.ports.values()]}]}],
        }
        path = os.path.join(self.work, "prometheus.yml")
        with open(path, "w") as f:
            json.dump(config, f)  # JSON is YAML
        return path

    def start_prometheus(self):
        config = self.write_config()
        log = open(os.path.join(self.work, "prometheus.log"), "w")
        p = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={self.work}/tsdb",
             f"--web.listen-address=127.0.0.1:{self.prom_port}", "--log.level=warn"],
            stdout=log, stderr=log)
        self.procs.append(p)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if p.poll() is not None:
                raise RuntimeError(f"prometheus exited: {open(log.name).read()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.prom_port}/-/ready", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("prometheus did not become ready")

    def stop_all(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    # MARK: Prometheus' API and the nodes' /metrics

    def api(self, path, **params):
        url = f"http://127.0.0.1:{self.prom_port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.load(e)

    def active_alerts(self):
        """{(alertname, instance): state} of every pending or firing alert."""
        return {(a["labels"]["alertname"], a["labels"].get("instance", "")): a["state"]
                for a in self.api("alerts")["data"]["alerts"]}

    def instance(self, node):
        return f"127.0.0.1:{self.ports[node]}"

    def metrics(self, node):
        return rt.http_get("127.0.0.1", self.ports[node], "/metrics")[1]

    def metric(self, node, key):
        return rt.parse_metrics(self.metrics(node)).get(key, 0.0)

    def restart_node(self, name):
        """SIGKILL and start again; returns once Prometheus has scraped the new process (its
        process_start_time_seconds), or None if it did not within 10 s."""
        self.nodes[name].send_signal(signal.SIGKILL)
        self.nodes[name].wait()
        self.start_node(name)
        started = self.metric(name, "process_start_time_seconds")
        query = f'process_start_time_seconds{{instance="{self.instance(name)}"}}'
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            result = self.api("query", query=query)["data"]["result"]
            if result and abs(float(result[0]["value"][1]) - started) < 1e-3:
                return time.monotonic()
            time.sleep(0.1)
        return None

    def wait_metric(self, node, key, pred, timeout):
        """The moment `pred(value)` holds on the node's /metrics (polled every 100 ms)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if pred(self.metric(node, key)):
                    return time.monotonic()
            except OSError:
                pass
            time.sleep(0.1)
        return None

    # MARK: the checks

    def budget_fire(self, alert):
        # The budget: `for:` plus two scrape intervals. From the moment the fault shows
        # on /metrics, the next scrape takes it (at most one interval), the next evaluation
        # sees it and the alert is pending (EVAL_S), and the first evaluation past `for:` fires
        # it (EVAL_S more): with EVAL_S a quarter of the interval, half an interval is margin.
        return opslib.duration_ms(self.alerts[alert].get("for", "0s")) / SCALE / 1000 + 2 * SCRAPE_S

    def budget_resolve(self, alert):
        window = opslib.resolve_window_ms(self.alerts[alert]["expr"], self.records)
        return window / SCALE / 1000 + 2 * SCRAPE_S + 2 * EVAL_S

    def expect_firing(self, wanted, since, must_not=()):
        """Waits for every (alert, instance) of `wanted` to fire, each within its budget from
        `since`; meanwhile none of `must_not` may be pending or firing."""
        left = {w: since + self.budget_fire(w[0]) for w in wanted}
        seen_bad = set()
        while left:
            now = time.monotonic()
            active = self.active_alerts()
            for w in list(left):
                if active.get(w) == "firing" and now <= left[w]:
                    rt.check(f"{w[0]} fires for {w[1]} ({now - since:.1f} s, budget {left[w] - since:.1f} s)", True)
                    del left[w]
                elif now > left[w]:
                    rt.check(f"{w[0]} fires for {w[1]} within {left[w] - since:.1f} s", False,
                             f"state {active.get(w, 'inactive')}; active: {sorted(active.items())}")
                    del left[w]
            for w in must_not:
                if w in active:
                    seen_bad.add(w)
            time.sleep(0.1)
        for w in must_not:
            rt.check(f"{w[0]} stays quiet for {w[1]}", w not in seen_bad, "it became active")
        return time.monotonic()

    def expect_resolved(self, alerts, since):
        left = {w: since + self.budget_resolve(w[0]) for w in alerts}
        while left:
            now = time.monotonic()
            active = self.active_alerts()
            for w in list(left):
                if w not in active and now <= left[w]:
                    rt.check(f"{w[0]} resolved for {w[1]} ({now - since:.1f} s, budget {left[w] - since:.1f} s)", True)
                    del left[w]
                elif now > left[w]:
                    rt.check(f"{w[0]} resolved for {w[1]} within {left[w] - since:.1f} s", False,
                             f"still {active[w]}")
                    del left[w]
            time.sleep(0.1)

    def expect_quiet(self, what, seconds):
        deadline = time.monotonic() + seconds
        seen = set()
        while time.monotonic() < deadline:
            seen |= set(self.active_alerts().items())
            time.sleep(0.2)
        rt.check(f"no alert pending or firing {what}", not seen, f"{sorted(seen)}")


# MARK: the flood


class Flood:
    """On relay-a: two sources of FINGERS fingers at 450 frames a second each and a raw observer
    of their session reading about 300 KB a second (a quarter of what the frames make): its
    queue fills and drops, and it still reads, so each `dropped` notice is taken and counted
    (the core counts drops as it tells the observer of them); and a source
    of another session sending `frames` of 64 samples as fast as the socket takes them (over
    11 times its rate: refused, read paused). On relay-b: a raw observer of the first session
    that reads all, and idle observers of sessions of their own, up to LIMIT - 1 connections
    and sessions."""

    def __init__(self, lab):
        self.lab = lab
        self.stop = threading.Event()
        self.socks = []
        self.threads = []
        self.received = 0
        self.sent = 0

    def connect(self, port, path, **kw):
        s, _ = rt.connect("127.0.0.1", port, path, **kw)
        self.socks.append(s)
        return s

    def start(self):
        a, b = self.lab.ports["relay-a"], self.lab.ports["relay-b"]
        slow = self.connect(a, "/v1/observe/fat?raw=1", rcvbuf=4096)
        reader = self.connect(b, "/v1/observe/fat?raw=1")
        for i in range(LIMIT - 2):
            self.connect(b, f"/v1/observe/idle-{i}")
        storm = self.connect(a, "/v1/source/storm")
        self.threads += [threading.Thread(target=self.read, args=(slow, 4096, 0.013), daemon=True),
                         threading.Thread(target=self.read, args=(reader, 1 << 16, 0), daemon=True),
                         threading.Thread(target=self.send, args=(storm, 1, 64, 0), daemon=True)]
        for _ in range(2):
            fat = self.connect(a, "/v1/source/fat")
            self.threads.append(threading.Thread(target=self.send, args=(fat, FINGERS, 9, 0.02), daemon=True))
        for t in self.threads:
            t.start()

    def read(self, sock, size, pause):
        sock.settimeout(0.5)
        while not self.stop.is_set():
            try:
                data = sock.recv(size)
            except socket.timeout:
                continue
            except OSError:
                return
            if not data:
                return
            self.received += len(data)
            if pause:
                time.sleep(pause)

    def send(self, s, fingers, per_message, pause):
        """`frames` messages of `per_message` samples of `fingers` fingers, one every `pause`
        seconds (0: as fast as the socket takes them)."""
        s.settimeout(None)
        s.sendall(rt.text({"type": "hello", "device": {"name": "flood", "width": 400, "height": 800}}))
        seq = 0
        while not self.stop.is_set():
            frames = []
            for _ in range(per_message):
                seq += 1
                phase = "began" if seq == 1 else "moved"
                frames.append({"seq": seq, "t": seq * 2, "touches": [
                    {"id": f, "phase": phase, "x": seq % 400, "y": 10 * f} for f in range(fingers)]})
            try:
                s.sendall(rt.text({"type": "frames", "frames": frames}, zero_mask=True))
            except OSError:
                return
            self.sent += per_message
            if pause:
                time.sleep(pause)

    def end(self):
        self.stop.set()
        for s in self.socks:
            rt.close_cleanly(s, wait=0.2)
        for t in self.threads:
            t.join(timeout=5)


def publish_junk(port, channel):
    """PUBLISH to Redis over a raw socket (RESP): a message no node made."""
    args = [b"PUBLISH", channel.encode(), b"not a node's message"]
    command = b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(command)
        answer = s.recv(64)
    if not answer.startswith(b":"):
        raise RuntimeError(f"Redis answered PUBLISH with {answer!r}")
    return int(answer[1:].split(b"\r\n")[0])


# MARK: the dashboard and the rules against the live server


def check_queries(lab):
    exported = opslib.exported_names(lab.metrics("relay-a")) | opslib.exported_names(lab.metrics("relay-b"))
    allowed = exported | opslib.PROMETHEUS_SERIES
    dash = opslib.load_dashboard()
    bad_names, failed, empty = [], [], []
    queries = opslib.dashboard_queries(dash)
    for where, expr in queries:
        unknown = opslib.metric_names(expr) - allowed
        if unknown:
            bad_names.append(f"{where}: {sorted(unknown)}")
        results = 0
        for node in lab.ports:
            q = opslib.grafana_expand(expr, "20s", "touch-relay", node)
            answer = lab.api("query", query=q)
            if answer.get("status") != "success":
                failed.append(f"{where} ({node}): {answer.get('error')}")
                continue
            results += len(answer["data"]["result"])
        if results == 0 and opslib.metric_names(expr) & exported:
            empty.append(where)
    rt.check(f"the dashboard's {len(queries)} expressions name only metrics the nodes export", not bad_names,
             "; ".join(bad_names))
    rt.check("Prometheus' query endpoint takes every dashboard expression, for each node", not failed, "; ".join(failed))
    rt.check("every dashboard expression on the nodes' metrics returns data for some node", not empty, "; ".join(empty))
    rules = opslib.rules_of(os.path.join(lab.rules_dir, "touchrelay.rules.yml"))
    records = {r["record"] for _, r in rules if "record" in r}
    bad = [f"{r.get('alert') or r.get('record')}: {sorted(opslib.metric_names(r['expr']) - allowed - records)}"
           for _, r in rules if opslib.metric_names(r["expr"]) - allowed - records]
    rt.check(f"the {len(rules)} rules name only metrics the nodes export and the rules record", not bad, "; ".join(bad))
    health = lab.api("rules")["data"]["groups"]
    unhealthy = [f"{r['name']}: {r.get('lastError')}" for g in health for r in g["rules"] if r.get("health") != "ok"]
    rt.check("Prometheus evaluates every rule without an error", not unhealthy, "; ".join(unhealthy))


# MARK: the phases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("relay", nargs="?", default=os.path.join(opslib.ROOT, ".build/debug/touch-relay"))
    ap.add_argument("--rules", default=str(opslib.OPS), help="folder with touchrelay.rules.yml")
    args = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="touchrelay-ops-") as work:
        lab = Lab(os.path.abspath(args.relay), args.rules, work)
        try:
            run(lab)
        except Exception as e:  # a failure to set up is a failure, with what the logs say
            rt.check("the test ran to its end", False, f"{e!r} {getattr(e, 'filename', None) or ''}")
            for name in ("relay-a.err", "relay-b.err", "prometheus.log"):
                path = os.path.join(work, name)
                if os.path.exists(path):
                    print(f"--- {name} (end):\n{open(path).read()[-1500:]}")
        finally:
            lab.stop_all()
    print(f"e2e: {time.monotonic() - started:.0f} s")
    rt.finish()


def run(lab):
    a, b = lab.instance("relay-a"), lab.instance("relay-b")
    lab.start_redis()
    lab.start_node("relay-a")
    lab.start_node("relay-b")
    lab.start_prometheus()
    lab.log(f"redis :{lab.redis_port}, relay-a {a}, relay-b {b}, prometheus :{lab.prom_port}")

    # 0. Quiet: both targets up, both nodes on the bus, then nothing active for 3 s.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        up = lab.api("query", query='up{job="touch-relay"} == 1')["data"]["result"]
        bus = lab.api("query", query="touchrelay_bus_up == 1")["data"]["result"]
        if len(up) == 2 and len(bus) == 2:
            break
        time.sleep(0.2)
    rt.check("Prometheus scrapes both nodes, both on the bus", len(up) == 2 and len(bus) == 2, f"up {up}, bus {bus}")
    # Evaluations before the first scrape saw no target (TouchRelayTargetsMissing pending):
    # the next ones, with the targets, clear that.
    time.sleep(3 * EVAL_S)
    lab.expect_quiet("with the nodes idle", 3)

    # 1. The flood.
    lab.log("phase 1: a slow observer, a flooding source, the nodes near their limits, junk on the bus")
    flood = Flood(lab)
    flood.start()
    listeners = publish_junk(lab.redis_port, "touchrelay:nodes")
    junk = time.monotonic()
    rt.check("both nodes listen on the nodes' channel", listeners == 2, f"{listeners} listeners")
    lab.expect_firing([("TouchRelayBusMalformed", a), ("TouchRelayBusMalformed", b)], junk)
    # The kernel's buffers for the slow observer fill first (a few MB at most, autotuned).
    since = lab.wait_metric("relay-a", 'touchrelay_dropped_messages_total{role="observer"}', lambda v: v > 0, 30)
    rt.check("relay-a drops messages for the slow observer", since is not None)
    since = since or time.monotonic()
    flooded = [("TouchRelayObserversDroppingMessages", a), ("TouchRelayReadPauses", a),
               ("TouchRelayErrorsAboveBaseline", a), ("TouchRelayConnectionsNearLimit", b),
               ("TouchRelaySessionsNearLimit", b)]
    lab.expect_firing(flooded, since)
    check_queries(lab)
    lab.log(f"flood: {flood.sent} frames sent, {flood.received} bytes read by the observers")
    flood.end()
    ended = time.monotonic()
    lab.expect_resolved(flooded + [("TouchRelayBusMalformed", a), ("TouchRelayBusMalformed", b)], ended)

    # 2. Redis killed, then started again.
    lab.log("phase 2: Redis killed")
    lab.redis.send_signal(signal.SIGKILL)
    lab.redis.wait()
    since = min(t for t in (lab.wait_metric(n, "touchrelay_bus_up", lambda v: v == 0, 10) for n in lab.nodes) if t)
    quiet = [(name, i) for name in ("TouchRelayBusNodeLost", "TouchRelayBusGaps", "TouchRelayBusPublishDropped")
             for i in (a, b)]
    lab.expect_firing([("TouchRelayBusDown", a), ("TouchRelayBusDown", b)], since, must_not=quiet)
    lab.start_redis()
    back = min(t for t in (lab.wait_metric(n, "touchrelay_bus_up", lambda v: v == 1, 15) for n in lab.nodes) if t)
    lab.log("Redis started again")
    lab.expect_resolved([("TouchRelayBusDown", a), ("TouchRelayBusDown", b)], back)

    # 3. relay-b killed, then started again.
    lab.log("phase 3: relay-b killed")
    lost_before = lab.metric("relay-a", "touchrelay_bus_nodes_lost_total")
    killed = time.monotonic()
    lab.nodes["relay-b"].send_signal(signal.SIGKILL)
    lab.nodes["relay-b"].wait()
    # Watched first: relay-a takes 3 s of silence to count relay-b lost, longer than this
    # alert's whole budget, and a look only after that wait would find it late.
    lab.expect_firing([("TouchRelayDown", b)], killed)
    lost = lab.wait_metric("relay-a", "touchrelay_bus_nodes_lost_total", lambda v: v > lost_before, 10)
    rt.check("relay-a counts relay-b lost", lost is not None)
    lab.expect_firing([("TouchRelayBusNodeLost", a)], lost or time.monotonic())
    lab.start_node("relay-b")
    restarted = time.monotonic()
    lab.log("relay-b started again")
    lab.expect_resolved([("TouchRelayDown", b)], restarted)
    lab.expect_resolved([("TouchRelayBusNodeLost", a)], lost or restarted)
    lab.expect_quiet("after one restart", 1)

    # 4. relay-b restarted twice more within the (scaled) hour: a crash loop.
    lab.log("phase 4: relay-b killed and started twice more")
    seen = [lab.restart_node("relay-b") for _ in range(2)]
    rt.check("Prometheus scrapes each new relay-b process", all(seen), f"{seen}")
    # It lasts until the first restart is an hour (scaled) old: the test ends here.
    lab.expect_firing([("TouchRelayRestarting", b)], seen[-1] or time.monotonic())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Cluster scenarios: two touch-relay nodes on one Redis against one node alone, in the same
run, on this 2-core machine (issue 22's targets).

  tools/bench/cluster.py [--rounds 3] [--seconds 10] [--relay BIN] [--load BIN]

- ingest: 200 sources x 60 Hz, one raw observer per source's session. Alone: sources and
  observers on one node. Cluster: sources on node A, observers on node B.
- fanout: 1 source x 120 Hz to 300 raw observers. Alone: all on one node. Cluster: the source
  on A, observers split over A and B.

For each: CPU per delivery (all relay processes, plus redis-server in the cluster, from
/proc over the whole touch-load run) and touch-load's end-to-end latency (p50, p99). Rounds
alternate alone / cluster so a slow spell of the VM hits both; medians are printed, and the
ratios the targets are about: cluster CPU per delivery / alone <= 1.5, cluster p99 - alone p99
<= 1 ms in ingest. Writes the figures as JSON with --json. Builds nothing: run tools/bench/run
once (or `swift build -c release`) first.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/relaytools.py
from relaytools import Lab, Server, http_get, parse_metrics, proc_cpu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Redis:
    """A redis-server on a free port, persistence off."""

    def __init__(self, lab):
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
               "--loglevel", "warning"]
        lab.note(cmd)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            r = subprocess.run(["redis-cli", "-p", str(self.port), "PING"], capture_output=True, text=True)
            if r.stdout.strip() == "PONG":
                break
            time.sleep(0.05)
        self.url = f"redis://127.0.0.1:{self.port}"

    def cpu(self):
        return proc_cpu(self.proc.pid)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def run_load(lab, load, args, tag):
    out = os.path.join(lab.work, f"{tag}.json")
    cmd = [load, *args, "--json", out, "-q"]
    lab.note(cmd)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def wait_meshed(nodes, timeout=10):
    """Until each node's /healthz lists the other and its bus is up."""
    import urllib.request
    deadline = time.time() + timeout
    while time.time() < deadline:
        ok = True
        for n in nodes:
            port = n.url.rsplit(":", 1)[1]
            h = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz"))
            c = h.get("cluster", {})
            if c.get("bus") != "up" or len(c.get("nodes", [])) < len(nodes) - 1:
                ok = False
        if ok:
            time.sleep(0.5)
            return
        time.sleep(0.2)
    raise RuntimeError("nodes did not mesh")


def measure(lab, a, mode, scenario):
    """One run of `scenario` ('ingest' or 'fanout') in `mode` ('alone' or 'cluster')."""
    base = ["-d", f"{a.seconds}s", "--warmup", "2s", "--raw", "--scenario", "pan", "--send-idle"]
    if scenario == "ingest":
        load = ["-c", "200", "-r", "60", "--sessions", "200", "--observers", "1", "--ramp-up", "2s"]
    else:
        load = ["-c", "1", "-r", "120", "--sessions", "1", "--observers", "300"]
    procs = []
    redis = None
    try:
        if mode == "alone":
            n = Server(lab, [], f"{scenario}-alone")
            procs = [n]
            urls = ["--url", n.url]
        else:
            redis = Redis(lab)
            flags = ["--redis", redis.url]
            na = Server(lab, flags + ["--node-id", "A"], f"{scenario}-A")
            nb = Server(lab, flags + ["--node-id", "B"], f"{scenario}-B")
            procs = [na, nb]
            wait_meshed(procs)
            if scenario == "ingest":
                urls = ["--url", na.url, "--source-url", na.url, "--observer-url", nb.url]
            else:
                urls = ["--url", na.url, "--source-url", na.url, "--observer-url", na.url, "--observer-url", nb.url]
        cpu0 = sum(p.cpu() for p in procs) + (redis.cpu() if redis else 0)
        r0 = redis.cpu() if redis else 0
        rep = run_load(lab, a.load, [*load, *base, *urls], f"{scenario}-{mode}")
        cpu1 = sum(p.cpu() for p in procs) + (redis.cpu() if redis else 0)
        deliveries = rep["messagesReceived"]
        bus = {}
        if redis:
            # What went over Redis, from the nodes' own counters.
            for n in procs:
                m = parse_metrics(http_get("127.0.0.1", int(n.url.rsplit(":", 1)[1]), "/metrics")[1])
                for key in ("touchrelay_bus_messages_total", "touchrelay_bus_records_total", "touchrelay_bus_bytes_total"):
                    for direction in ("in", "out"):
                        series = f'{key}{{direction="{direction}"}}'
                        bus[f"{key}_{direction}"] = bus.get(f"{key}_{direction}", 0) + m.get(series, 0)
        return {
            "bus": bus,
            "cpu_s": cpu1 - cpu0, "redis_cpu_s": (redis.cpu() - r0) if redis else 0.0, "deliveries": deliveries,
            "us_per_delivery": (cpu1 - cpu0) / max(1, deliveries) * 1e6,
            "p50_ms": rep["latency"]["p50"], "p99_ms": rep["latency"]["p99"],
            "dropped": rep["droppedMessages"], "errors": sum(rep["serverErrors"].values()) + sum(rep["failures"].values()),
        }
    finally:
        for p in procs:
            p.stop()
        if redis:
            redis.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--relay", default=os.path.join(ROOT, ".build", "release", "touch-relay"))
    p.add_argument("--load", default=os.path.join(ROOT, ".build", "release", "touch-load"))
    p.add_argument("--scenarios", default="ingest,fanout")
    p.add_argument("--json")
    a = p.parse_args()
    if not shutil.which("redis-server"):
        sys.exit("redis-server is not installed (apt-get install redis-server)")
    lab = Lab(a.relay, tempfile.mkdtemp(prefix="touch-cluster-"), ROOT)
    results = {}
    for scenario in a.scenarios.split(","):
        runs = {"alone": [], "cluster": []}
        for k in range(a.rounds):
            order = ["alone", "cluster"] if k % 2 == 0 else ["cluster", "alone"]
            for mode in order:
                r = measure(lab, a, mode, scenario)
                runs[mode].append(r)
                print(f"{scenario} {mode:7s} round {k + 1}: {r['us_per_delivery']:.2f} µs/delivery "
                      f"({r['deliveries']} deliveries, redis {r['redis_cpu_s']:.2f} s), p50 {r['p50_ms']:.2f} ms, "
                      f"p99 {r['p99_ms']:.2f} ms, dropped {r['dropped']}, errors {r['errors']}", flush=True)
        med = {m: {k: statistics.median(r[k] for r in rs) for k in rs[0] if k != "bus"} for m, rs in runs.items()}
        ratios = [c["us_per_delivery"] / s["us_per_delivery"] for s, c in zip(runs["alone"], runs["cluster"])]
        results[scenario] = {"runs": runs, "median": med, "cpu_ratio_per_round": ratios,
                             "cpu_ratio": statistics.median(ratios),
                             "p99_added_ms": med["cluster"]["p99_ms"] - med["alone"]["p99_ms"]}
        print(f"== {scenario}: CPU per delivery cluster/alone {statistics.median(ratios):.2f} "
              f"(rounds: {', '.join(f'{x:.2f}' for x in ratios)}; target <= 1.5); "
              f"p99 alone {med['alone']['p99_ms']:.2f} ms, cluster {med['cluster']['p99_ms']:.2f} ms "
              f"(+{results[scenario]['p99_added_ms']:.2f} ms)", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"results": results, "commands": lab.commands}, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A live session beside idle connections: the server's RSS and the session's latency as idle
observers are added, on one server, in one run (issue 39's cost curve "RSS and a live
session's p99 against idle connections").

    idle_curve.py --relay BINARY --load TOUCH-LOAD [--steps 0,1000,5000,10000,19000]
                  [--sources 10] [--seconds 8] [--json OUT] [-- SERVER-FLAGS...]

The server runs with --no-compression and no per-address limit (every client is 127.0.0.1). At each step, idle observers (idle_ws.py, plain
sockets, 100 sessions) are opened up to the step's count and left open; then touch-load runs
the live session, SOURCES sources at 60 Hz in sessions of their own with one raw observer
each, for SECONDS, and its p50/p99 (ms, frame sent to observer received) are read from its
report. The first step (0) is measured again at the end, once every idle observer has closed:
the two say how much the machine drifted during the run. Prints a Markdown table.

Both processes need a descriptor per connection: run it where the limit is above the last
step (the bench's `run` raises it; the hard limit here is 20,000).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def live_session(load, url, sources, seconds, work, tag):
    out = os.path.join(work, f"{tag}.json")
    cmd = [load, "--url", url, "-c", str(sources), "-r", "60", "--sessions", str(sources), "--observers", "1",
           "--raw", "--warmup", "2s", "-d", f"{seconds}s", "--session-prefix", "live", "--json", out, "-q"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=seconds + 120)
    with open(out) as f:
        rep = json.load(f)
    lat = rep["latency"]
    return {"p50": lat["p50"], "p99": lat["p99"], "dropped": rep["droppedMessages"],
            "framesPerSecond": round(rep["steadyFramesPerSecond"], 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--load", required=True)
    ap.add_argument("--steps", default="0,1000,5000,10000,19000")
    ap.add_argument("--sources", type=int, default=10)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--json")
    ap.add_argument("flags", nargs="*", help="more flags for the server")
    a = ap.parse_args()
    steps = [int(s) for s in a.steps.split(",")]
    work = tempfile.mkdtemp(prefix="idle-curve-")
    server = subprocess.Popen([a.relay, "--host", "127.0.0.1", "--port", "0", "--no-compression", "--max-connections-per-address", "100000", "--log-level",
                               "error", *a.flags], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()
    m = re.search(r"listening on (ws://[^ ]+) .*up to (\d+) connections", line)
    if not m:
        server.kill()
        sys.exit(f"no start-up line: {line!r}")
    url, allowed = m.group(1), int(m.group(2))
    rows = []
    idle = []
    try:
        time.sleep(1.0)
        base_rss, base_fds = rss_kb(server.pid), fds(server.pid)
        opened = 0
        for step in steps:
            if step > opened:
                p = subprocess.Popen([sys.executable, os.path.join(HERE, "idle_ws.py"), "--url", url, "--count",
                                      str(step - opened), "--sessions", "100", "--prefix", f"idle{len(idle)}"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                ready = json.loads(p.stdout.readline() or "{}")
                idle.append(p)
                opened += ready.get("connected", 0)
                deadline = time.monotonic() + 30
                while fds(server.pid) < base_fds + opened and time.monotonic() < deadline:
                    time.sleep(0.1)
                time.sleep(1.0)
            rss = rss_kb(server.pid)
            r = live_session(a.load, url, a.sources, a.seconds, work, f"step-{step}")
            r.update(idle=opened, rssKB=rss,
                     bytesPerIdle=round((rss - base_rss) * 1024 / opened) if opened else None)
            rows.append(r)
            print(f"{opened:>6} idle: RSS {rss:,} kB, live p50 {r['p50']:.2f} ms, p99 {r['p99']:.2f} ms", file=sys.stderr)
        for p in idle:
            p.stdin.close()
            p.wait(timeout=60)
        idle = []
        deadline = time.monotonic() + 30
        while fds(server.pid) > base_fds + 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        r = live_session(a.load, url, a.sources, a.seconds, work, "again-0")
        r.update(idle=0, rssKB=rss_kb(server.pid), bytesPerIdle=None, again=True)
        rows.append(r)
    finally:
        for p in idle:
            p.kill()
        server.terminate()
        server.wait(timeout=30)
    print(f"| idle observers | server RSS (kB) | bytes per idle | live p50 (ms) | live p99 (ms) | dropped |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        label = f"{r['idle']:,}" + (" (again, at the end)" if r.get("again") else "")
        per = f"{r['bytesPerIdle']:,}" if r["bytesPerIdle"] else "—"
        print(f"| {label} | {r['rssKB']:,} | {per} | {r['p50']:.2f} | {r['p99']:.2f} | {r['dropped']} |")
    print(f"\n(server allowed {allowed:,} connections; {a.sources} live sources at 60 Hz, {a.seconds} s per step)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"allowed": allowed, "sources": a.sources, "seconds": a.seconds, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()

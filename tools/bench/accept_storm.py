#!/usr/bin/env python3
"""A storm of connecting phones: how fast touch-relay accepts N observers opened as fast as
touch-load can, against the C libwebsockets floor (tools/bench/floor) in the same run
(issue 39: at least 0.9x the floor's rate).

    accept_storm.py --relay BINARY --floor FLOOR --load TOUCH-LOAD [--connections 19000]
                    [--pairs 3] [--json OUT]

Each pair starts both servers in turn (which first alternates from pair to pair), launches
touch-load with N observers over 100 sessions and no sources, and times from the launch until
the server holds N more descriptors (read from /proc every 10 ms). The rate is N over that
time; the ratio is touch-relay's rate over the floor's in the same pair. Prints each pair, the
median rates and the median ratio. Both servers run with --no-compression (touch-load offers
none anyway) and no per-address limit (every client is 127.0.0.1; the floor ignores the flag).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def storm(server_cmd, load, n, work, tag):
    server = subprocess.Popen(server_cmd + ["--host", "127.0.0.1", "--port", "0", "--no-compression",
                                            "--max-connections-per-address", "100000", "--log-level", "error"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()
    m = re.search(r"listening on (ws://[^ ]+)", line)
    if not m:
        server.kill()
        sys.exit(f"{server_cmd[0]}: no start-up line: {line!r}")
    url = m.group(1)
    proc = None
    try:
        time.sleep(0.5)
        base = fds(server.pid)
        cmd = [load, "--url", url, "-c", "0", "--observers", str(n // 100), "--sessions", "100",
               "--session-prefix", "storm", "-d", "600s", "-q", "--json", os.path.join(work, f"{tag}.json")]
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        held = 0
        while time.monotonic() - t0 < 300:
            held = fds(server.pid) - base
            if held >= n or proc.poll() is not None:
                break
            time.sleep(0.01)
        elapsed = time.monotonic() - t0
        return {"connections": held, "seconds": round(elapsed, 3), "perSecond": round(held / elapsed, 1)}
    finally:
        if proc and proc.poll() is None:
            proc.kill()
            proc.wait()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--load", required=True)
    ap.add_argument("--connections", type=int, default=19000)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="accept-storm-")
    pairs = []
    for k in range(a.pairs):
        order = [("relay", a.relay), ("floor", a.floor)]
        if k % 2:
            order.reverse()
        pair = {}
        for name, binary in order:
            pair[name] = storm([binary], a.load, a.connections, work, f"{name}-{k}")
            time.sleep(2)  # the last run's sockets leave TIME_WAIT's way
        pair["ratio"] = round(pair["relay"]["perSecond"] / pair["floor"]["perSecond"], 3)
        pairs.append(pair)
        print(f"pair {k + 1}: touch-relay {pair['relay']['perSecond']:,.0f}/s "
              f"({pair['relay']['connections']:,} in {pair['relay']['seconds']} s), floor "
              f"{pair['floor']['perSecond']:,.0f}/s ({pair['floor']['connections']:,} in {pair['floor']['seconds']} s), "
              f"ratio {pair['ratio']}", file=sys.stderr)
    summary = {
        "connections": a.connections,
        "relayPerSecond": statistics.median(p["relay"]["perSecond"] for p in pairs),
        "floorPerSecond": statistics.median(p["floor"]["perSecond"] for p in pairs),
        "ratio": statistics.median(p["ratio"] for p in pairs),
        "pairs": pairs,
    }
    print(f"accept storm, {a.connections:,} observers: touch-relay {summary['relayPerSecond']:,.0f}/s, floor "
          f"{summary['floorPerSecond']:,.0f}/s, median paired ratio {summary['ratio']} "
          f"({', '.join(str(p['ratio']) for p in pairs)})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where a process's resident memory is: /proc/PID/smaps summed by mapping (each shared
library, the executable, the heap, anonymous memory), with how much of it is private and dirty
(written by this process: relocations, data, heap; a file written moments ago also reads as
dirty until the kernel writes it back) and so how much is clean (file pages, shareable).

    rss_breakdown.py PID                   one running process
    rss_breakdown.py --start BINARY [--runs 3] [--settle 2] [--observers N [--deflate]] [-- FLAGS...]

With --start it starts BINARY `--host 127.0.0.1 --port 0 FLAGS` RUNS times, reads the
breakdown of each once it listens (plus SETTLE seconds), and prints the median VmRSS and the
breakdown of the median run. With --observers N it then opens N idle observers with
idle_ws.py (no compression offered; permessage-deflate with --deflate) in each run and
reports (RSS with them − RSS idle) / N, the bytes per idle connection. --json prints one JSON object instead of the table.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
HERE = os.path.dirname(os.path.abspath(__file__))


def vm_rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def breakdown(pid):
    """{name: {"rss": kB, "dirty": kB}} over the mappings of `pid`; anonymous mappings are
    '[anon]', the rest by file name (without its directory) or their [tag]."""
    rows = {}
    name = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                parts = line.split()
                name = os.path.basename(parts[5]) if len(parts) > 5 else "[anon]"
                if parts[5:] and parts[5].startswith("["):
                    name = parts[5]
                rows.setdefault(name, {"rss": 0, "dirty": 0})
            elif line.startswith("Rss:"):
                rows[name]["rss"] += int(line.split()[1])
            elif line.startswith("Private_Dirty:"):
                rows[name]["dirty"] += int(line.split()[1])
    return rows


def table(rows, total):
    out = [f"{'kB':>7} {'dirty kB':>8}  mapping"]
    for name, r in sorted(rows.items(), key=lambda kv: -kv[1]["rss"]):
        if r["rss"]:
            out.append(f"{r['rss']:>7,} {r['dirty']:>8,}  {name}")
    out.append(f"{total:>7,} {sum(r['dirty'] for r in rows.values()):>8,}  VmRSS")
    return "\n".join(out)


def one_run(binary, flags, settle, observers, deflate=False):
    proc = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--log-level", "error", *flags],
                            stdout=subprocess.PIPE, text=True)
    try:
        port = int(re.search(r":(\d+) ", proc.stdout.readline()).group(1))
        time.sleep(settle)
        run = {"rssKB": vm_rss_kb(proc.pid), "mappings": breakdown(proc.pid)}
        if observers:
            idle = subprocess.Popen([sys.executable, os.path.join(HERE, "idle_ws.py"), "--url",
                                     f"ws://127.0.0.1:{port}", "--count", str(observers), "--sessions",
                                     str(max(1, observers // 100))] + (["--deflate"] if deflate else []), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    text=True)
            ready = json.loads(idle.stdout.readline())
            time.sleep(settle)
            with_kb = vm_rss_kb(proc.pid)
            idle.stdin.close()
            idle.wait(timeout=60)
            run.update(observers=ready.get("connected"), rssWithObserversKB=with_kb,
                       bytesPerConnection=round((with_kb - run["rssKB"]) * 1024 / max(1, ready.get("connected", 0))))
        return run
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pid", nargs="?", type=int)
    ap.add_argument("--start", metavar="BINARY")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--settle", type=float, default=2.0)
    ap.add_argument("--observers", type=int, default=0)
    ap.add_argument("--deflate", action="store_true", help="the observers offer permessage-deflate")
    ap.add_argument("--json", action="store_true")
    argv = sys.argv[1:]
    flags = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.flags = flags
    if a.pid:
        rows = breakdown(a.pid)
        total = vm_rss_kb(a.pid)
        print(json.dumps({"rssKB": total, "mappings": rows}) if a.json else table(rows, total))
        return
    if not a.start:
        ap.error("give a PID or --start BINARY")
    runs = [one_run(a.start, a.flags, a.settle, a.observers, a.deflate) for _ in range(a.runs)]
    median = statistics.median_low([r["rssKB"] for r in runs])
    mid = next(r for r in runs if r["rssKB"] == median)
    summary = {"binary": a.start, "flags": a.flags, "runs": [r["rssKB"] for r in runs], "medianRssKB": median}
    if a.observers:
        summary["bytesPerConnection"] = [r["bytesPerConnection"] for r in runs]
        summary["medianBytesPerConnection"] = statistics.median([r["bytesPerConnection"] for r in runs])
        summary["observers"] = [r["observers"] for r in runs]
    if a.json:
        summary["mappings"] = mid["mappings"]
        print(json.dumps(summary))
        return
    print(table(mid["mappings"], median))
    print(f"\nVmRSS of {len(runs)} starts (kB): {summary['runs']}, median {median:,}")
    if a.observers:
        print(f"bytes per idle connection ({a.observers:,} observers, {'permessage-deflate' if a.deflate else 'no compression'} offered): "
              f"{summary['bytesPerConnection']}, median {summary['medianBytesPerConnection']:,.0f}")


if __name__ == "__main__":
    main()

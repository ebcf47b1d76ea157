#!/usr/bin/env python3
"""Syscalls per delivery of one server under a load, by name: `perf stat` on every syscall
tracepoint (`syscalls:sys_enter_*`) of the server's process over a steady window. `strace -c`
slows a server so much that it batches differently; the tracepoints cost little.

  tools/bench/syscalls.py [--fanout 500 | --sources 200] [--seconds 4] SERVER [-- touch-load flags...]

SERVER is `BINARY` or `BINARY:FLAGS`, as for paired.py (e.g. `.build-bench/bench/floor-relay`
or `.build-bench/release/touch-relay:--no-gestures`). The server runs on CPU 0, touch-load
(`.build-bench/release/touch-load`, one event loop) on CPU 1: fan-out is 1 source x 120 Hz to
N raw observers, ingest N sources x 60 Hz with one raw observer each, both `--send-idle`.
Deliveries are the `touches` messages observers received per second (touch-load's
`messagesPerSecond`) over the same seconds. Prints each syscall made at least 0.005 times per
delivery, and their sum. Needs perf with tracepoint access (root, or perf_event_paranoid <= -1).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from bench import WARMUP_S, fanout_load, ingest_load, perf_syscalls  # noqa: E402  (tools/bench/bench.py, beside this file)
from paired import LOAD, spec  # noqa: E402
from relaytools import Lab, Server, pinned_to  # noqa: E402  (tools/relaytools.py: bench put tools/ on sys.path)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description="Syscalls per delivery of one server (see the file's docstring).")
    load = p.add_mutually_exclusive_group()
    load.add_argument("--fanout", type=int, metavar="N", help="1 source x 120 Hz to N raw observers (default 500)")
    load.add_argument("--sources", type=int, metavar="N", help="instead: N sources x 60 Hz, one raw observer each")
    p.add_argument("--seconds", type=float, default=4.0, help="how long perf counts (default 4)")
    p.add_argument("server")
    a = p.parse_args(argv)
    if not shutil.which("perf"):
        sys.exit("syscalls: perf is not installed (Debian: linux-perf)")
    if not os.path.exists(LOAD):
        sys.exit(f"syscalls: build touch-load first ({LOAD}): tools/bench/run builds it")
    if a.sources is None and a.fanout is None:
        a.fanout = 500
    load_args = ingest_load(a.sources) if a.sources is not None else fanout_load(a.fanout)
    binary, flags = spec(a.server)
    pin = (os.cpu_count() or 1) >= 2 and shutil.which("taskset") is not None
    with tempfile.TemporaryDirectory() as tmp:
        lab = Lab(None, tmp, ROOT, quiet=True)
        server = Server(lab, flags, "syscalls", cpu=0 if pin else None, binary=binary)
        out = os.path.join(tmp, "load.json")
        try:
            cmd = [*pinned_to(1 if pin else None), LOAD, "--url", server.url, *load_args, "--send-idle",
                   "-d", f"{a.seconds + 7:.0f}s", "--threads", "1", "--json", out, "-q", *extra]
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # Connected, warmed up and steady before counting.
            time.sleep(WARMUP_S + 2)
            counts = perf_syscalls(server.pid, ["syscalls:sys_enter_*"], a.seconds)
            proc.wait(timeout=120)
        finally:
            server.stop()
        with open(out) as f:
            rep = json.load(f)
    if not counts:
        sys.exit("syscalls: perf counted nothing (tracepoints not readable? run as root, or lower "
                 "/proc/sys/kernel/perf_event_paranoid)")
    deliveries = rep["messagesPerSecond"] * a.seconds
    per = {k: v / deliveries for k, v in counts.items() if v / deliveries >= 0.005}
    what = f"{a.sources} sources x 60 Hz" if a.sources is not None else f"1 source x 120 Hz -> {a.fanout} observers"
    print(f"{a.server}: {what}, {rep['messagesPerSecond']:,.0f} deliveries/s, p99 {rep['latency']['p99']:.2f} ms, "
          f"dropped {rep['droppedMessages']}; syscalls per delivery over {a.seconds:g} s:")
    for k, v in sorted(per.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<16} {v:7.3f}")
    print(f"  {'all':<16} {sum(counts.values()) / deliveries:7.3f}")


if __name__ == "__main__":
    main()

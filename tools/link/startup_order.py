#!/usr/bin/env python3
"""Writes tools/link/touch-relay.order, the functions an idle touch-relay runs, for lld's
--symbol-ordering-file (Package.swift, the touch-relay target; PERFORMANCE.md, "Memory per
process").

Why: the kernel maps an executable's text 64 kB or more around each page a process touches
(fault-around), so start-up code spread over 13 MB of .text kept about 6 MB of it resident in an
idle server. Laid out together by the linker, the same functions cost a few hundred kB.

How: the release binary (debug info stripped into a copy: valgrind 3.19 cannot read Swift's
DWARF 5) starts under `valgrind --tool=callgrind` with the flags rss_breakdown.py uses; once it
listens, and SETTLE seconds later (the idle timers have run), callgrind dumps its counts. Then
OBSERVERS idle observers connect (tools/bench/idle_ws.py, as rss_breakdown.py --observers does)
and stay SETTLE seconds, callgrind dumps again and the server is stopped. The functions of the
executable that ran in either are written, one mangled name a line, sorted (the order among them
does not matter: all of them are touched); names the executable defines more than once are left
out (see unique_names). The connections' functions are listed too: left out, the code a first
connection runs stays scattered and the pages it faults in are charged to the first observers;
listed with start-up's, they cost no more at idle.

Names the code no longer has are ignored by the linker (--no-warn-symbol-ordering), and a
function missing from a stale list only costs memory, so the list is regenerated when start-up or
connection code changes much, or with a new Swift toolchain. SwiftPM does not relink when only
the list changes, hence the `rm`:

    swift build -c release --product touch-relay
    tools/link/startup_order.py .build/release/touch-relay
    rm .build/release/touch-relay && swift build -c release --product touch-relay

Needs valgrind (Debian: valgrind); the build itself needs only the list.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = os.path.join(HERE, "touch-relay.order")
HEADER = ("# Functions touch-relay runs at start-up, idle and for its first observers, for lld "
          "--symbol-ordering-file (lines starting "
          "with # are not symbols).\n# Written by tools/link/startup_order.py; regenerate, do "
          "not edit.\n")


def executed_functions(callgrind_out, object_name):
    """Names of the functions callgrind saw run in `object_name` (its `ob=`), without
    callgrind's recursion suffixes (`'2`), without the unnamed (`0x...`) and without its own
    names (`(below main)`)."""
    objects, functions, current, names = {}, {}, None, set()
    with open(callgrind_out, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    objects[m.group(2)] = m.group(3)
                if m.group(1) == "ob":
                    current = objects[m.group(2)]
                continue
            m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    functions[m.group(2)] = m.group(3)
                if m.group(1) == "fn" and current and os.path.basename(current) == object_name:
                    names.add(re.sub(r"'\d+$", "", functions[m.group(2)]))
    return sorted(n for n in names if not n.startswith("0x") and " " not in n)


def unique_names(binary):
    """The names the executable defines once. A local helper that many files define alike
    (merged `...Tm` thunks, value witnesses) is ordered by lld in every file that has it, so
    listing the one copy that ran would move dozens of cold sections, some of hundreds of kB,
    into the start-up region."""
    out = subprocess.run(["nm", "--defined-only", binary], check=True, capture_output=True, text=True).stdout
    count = {}
    for line in out.splitlines():
        name = line.split()[-1]
        count[name] = count.get(name, 0) + 1
    return {name for name, n in count.items() if n == 1}


def dump(pid, path, number):
    """Has callgrind write its counts since the last dump to PATH.NUMBER; returns that name."""
    subprocess.run(["callgrind_control", "--dump", str(pid)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    name = f"{path}.{number}"
    for _ in range(100):
        if os.path.exists(name):
            break
        time.sleep(0.1)
    time.sleep(1)  # the file exists before it is written in full
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary", help="a release touch-relay")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds idle after each step")
    ap.add_argument("--observers", type=int, default=20)
    ap.add_argument("--out", default=ORDER)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "touch-relay")
        shutil.copy(a.binary, stripped)
        subprocess.run(["strip", "--strip-debug", stripped], check=True)
        out = os.path.join(tmp, "callgrind.out")
        proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no", "--demangle=no",
             stripped, "--host", "127.0.0.1", "--port", "0", "--log-level", "error", "--no-compression"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = proc.stdout.readline()
            port = re.search(r":(\d+) ", line)
            if "listening" not in line or not port:
                sys.exit(f"touch-relay did not start under valgrind: {line!r}")
            time.sleep(a.settle)
            idle = dump(proc.pid, out, 1)
            observers = subprocess.Popen(
                [sys.executable, os.path.join(os.path.dirname(HERE), "bench", "idle_ws.py"), "--url",
                 f"ws://127.0.0.1:{port.group(1)}", "--count", str(a.observers), "--sessions", "2",
                 "--timeout", "60"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            ready = json.loads(observers.stdout.readline() or "{}")
            if ready.get("connected") != a.observers:
                sys.exit(f"observers did not connect: {ready}")
            time.sleep(a.settle)
            connected = dump(proc.pid, out, 2)
            observers.stdin.close()
            observers.wait(timeout=60)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        unique = unique_names(a.binary)
        idle_names = executed_functions(idle, "touch-relay")
        names = sorted({n for n in idle_names + executed_functions(connected, "touch-relay") if n in unique})
    if len(idle_names) < 500:
        sys.exit(f"only {len(idle_names)} functions ran at start-up: not writing {a.out}")
    with open(a.out, "w") as f:
        f.write(HEADER)
        f.write("".join(n + "\n" for n in names))
    print(f"{len(names)} functions -> {os.path.relpath(a.out)}")


if __name__ == "__main__":
    main()

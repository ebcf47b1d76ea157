#!/usr/bin/env python3
"""Writes tools/link/touch-relay.order for lld's --symbol-ordering-file (Package.swift, the
touch-relay target): first the functions a loaded touch-relay runs per frame, in call-graph
order, then the functions an idle one runs (PERFORMANCE.md, "Memory per process" and "Code
layout of the frame path").

Why, the frame path: an ingest frame runs about 450 of the executable's functions. Where the
linker left them (by file, over 13 MB of .text), each frame took far more instruction cache
lines and TLB pages than the code needs; laid out together, callers beside their callees, the
server does the same work in fewer CPU cycles.

Why, idle: the kernel maps an executable's text 64 kB or more around each page a process
touches (fault-around), so start-up code spread over 13 MB of .text kept about 6 MB of it
resident in an idle server. Laid out together by the linker, the same functions cost a few
hundred kB.

How: the release binary (debug info stripped into a copy: valgrind 3.19 cannot read Swift's
DWARF 5) starts under `valgrind --tool=callgrind` with the flags rss_breakdown.py uses; once it
listens, and SETTLE seconds later (the idle timers have run), callgrind dumps its counts. Then
OBSERVERS idle observers connect (tools/bench/idle_ws.py, as rss_breakdown.py --observers does)
and stay SETTLE seconds, and callgrind dumps again. Last, touch-load (from the binary's own
build directory) sends SOURCES x 60 Hz with idle frames, one raw observer each, gestures on,
for LOAD_SECONDS, and callgrind dumps a third time before the server is stopped.

The list: the functions that make up 99.9 % of the executable's own instructions under the load,
clustered as lld's --call-graph-ordering-file does (C3: each function, hottest first, joins the
cluster of the caller that calls it most; clusters by instructions per byte), then every other
function that ran idle or for the observers, sorted by name (the order among them does not
matter: all of them are touched). Names the executable defines more than once are left out (see
unique_names). The connections' functions are listed too: left out, the code a first
connection runs stays scattered and the pages it faults in are charged to the first observers;
listed with start-up's, they cost no more at idle.

Names the code no longer has are ignored by the linker (--no-warn-symbol-ordering), and a
function missing from a stale list only costs memory or a little speed, so the list is
regenerated when the frame path, start-up or connection code changes much, or with a new Swift
toolchain. SwiftPM does not relink when only the list changes, hence the `rm`:

    swift build -c release --product touch-relay --product touch-load
    tools/link/order.py .build/release/touch-relay
    rm .build/release/touch-relay && swift build -c release --product touch-relay

`--check` (CI, after the release build) runs only the load step and counts how many of the
frame path's functions, as callgrind sees them in that binary now, the head of the list (its
frame-path part) still names; it prints the share and fails below CHECK_SHARE. A stale list
costs a little speed and nothing else the tests see, so without the check it would go on
being stale:

    tools/link/order.py --check .build-release-tests/release/touch-relay

Needs valgrind (Debian: valgrind); the build itself needs only the list.
"""

import argparse
import glob
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
HEADER = ("# Functions touch-relay runs per frame under load (call-graph order), then at start-up, idle "
          "and for its first observers, for lld --symbol-ordering-file (lines starting with # are "
          "not symbols).\n# Written by tools/link/order.py; regenerate, do not edit.\n")
# The share of the executable's own instructions under load whose functions lead the list.
HOT_SHARE = 0.999
# The line between the frame path's part of the list and the rest (a comment to lld).
REST_MARKER = "# Start-up, idle and connections, by name:"
# `--check` fails when the head names less than this share of today's frame path.
CHECK_SHARE = 0.90
# lld's --call-graph-ordering-file limits (CallGraphSort.cpp): a cluster grows to at most 1 MB
# and is not merged into one eight times less dense.
MAX_CLUSTER_BYTES = 1 << 20
MAX_DENSITY_DEGRADATION = 8
# Seconds of load before its counts start: the sources and observers connect (under valgrind).
LOAD_SETTLE = 4


def executed_functions(callgrind_out, object_name):
    """Names of the functions callgrind saw run in `object_name` (its `ob=`), without
    callgrind's recursion suffixes (`'2`), without the unnamed (`0x...`) and without its own
    names (`(below main)`): those with instructions of their own in `call_profile`."""
    own, _ = call_profile(callgrind_out, object_name)
    return sorted(n for n in own if not n.startswith("0x") and " " not in n)


COST_LINE_START = set("0123456789+-*")


def call_profile(callgrind_out, object_name):
    """The executable's own instructions per function (`self`) and calls per (caller, callee)
    between its functions (`calls`), from a callgrind file written with --dump-instr=no (a cost
    line is `position instructions`, the position a line number, `+N`, `-N` or `*`; after
    `calls=N ...` the next one is the call's inclusive cost, not the caller's own)."""
    objects, functions = {}, {}
    own, calls = {}, {}
    current_object = current = callee_object = callee = None
    pending = None
    with open(callgrind_out, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    objects[m.group(2)] = os.path.basename(m.group(3))
                if m.group(1) == "ob":
                    current_object = objects[m.group(2)]
                else:
                    callee_object = objects[m.group(2)]
                continue
            m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    functions[m.group(2)] = re.sub(r"'\d+$", "", m.group(3))
                if m.group(1) == "fn":
                    current = functions[m.group(2)] if current_object == object_name else None
                    callee_object = None
                else:
                    callee = functions[m.group(2)]
                continue
            if line.startswith("calls="):
                pending = int(line[6:].split()[0])
                continue
            is_cost = line[:1] in COST_LINE_START
            if not is_cost or current is None:
                if is_cost:
                    pending, callee_object = None, None
                continue
            if pending is not None:
                if (callee_object or current_object) == object_name and callee != current:
                    calls[(current, callee)] = calls.get((current, callee), 0) + pending
                pending, callee_object = None, None
            else:
                parts = line.split()
                if len(parts) > 1:
                    own[current] = own.get(current, 0) + int(parts[1])
    return own, calls


def symbol_sizes(binary):
    """Bytes of each function the executable defines (nm -S)."""
    out = subprocess.run(["nm", "--defined-only", "-S", binary], check=True, capture_output=True, text=True).stdout
    sizes = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            sizes[parts[3]] = max(sizes.get(parts[3], 0), int(parts[1], 16))
    return sizes


def monolithic_names(limit=64 * 1024):
    """Names defined in the toolchain's static archives by objects whose `.text` is one section
    bigger than `limit` (libswiftCore's Swift.o: 1.6 MB, built without function sections).
    Listing one of them moves the whole section: among the frame path's functions it would put
    megabytes between them, so they are left to the start-up part of the list."""
    swiftc = shutil.which("swiftc")
    if not swiftc:
        return set()
    static = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(swiftc))), "lib", "swift_static", "linux")
    names = set()
    for archive in sorted(glob.glob(os.path.join(static, "*.a"))):
        sizes = subprocess.run(["size", "-A", archive], capture_output=True, text=True).stdout
        big, member = set(), None
        for line in sizes.splitlines():
            m = re.match(r"^(\S+)\s+\(ex ", line)
            if m:
                member = m.group(1)
            elif line.startswith(".text ") and member and int(line.split()[1]) > limit:
                big.add(member)
        if not big:
            continue
        listing = subprocess.run(["nm", "-A", "--defined-only", archive], capture_output=True, text=True).stdout
        for line in listing.splitlines():
            # archive:member:address type name
            parts = line.split()
            where = parts[0].rsplit(":", 2) if len(parts) == 3 else []
            if len(where) == 3 and where[1] in big:
                names.add(parts[2])
    return names


def frame_path(own, sizes, unique, monolithic):
    """The functions that make up HOT_SHARE of `own`'s instructions, hottest first, without
    those in `monolithic` (they count towards the share) and those that cannot be listed (not
    unique, no size)."""
    ranked = sorted((f for f in own if f in unique and f in sizes), key=lambda f: -own[f])
    total, running, hot = sum(own[f] for f in ranked), 0, []
    for f in ranked:
        if running >= HOT_SHARE * total:
            break
        running += own[f]
        if f not in monolithic:
            hot.append(f)
    return hot


def listed_head(path):
    """The frame-path part of an order file: the names before REST_MARKER. A list written
    before the marker existed has the rest sorted by name and the head in call-graph order, so
    its head ends where its sorted tail begins."""
    head, names = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line == REST_MARKER:
                return head
            if line and not line.startswith("#"):
                head.append(line)
                names.append(line)
    start = len(names) - 1
    while start > 0 and names[start - 1] <= names[start]:
        start -= 1
    return names[:start]


def hot_order(own, calls, sizes, unique, monolithic):
    """The functions that make up HOT_SHARE of `own`'s instructions, in C3 order (Ottoni and
    Maher, "Optimizing function placement for large-scale data-center applications", as lld's
    CallGraphSort does it): hottest first, each function's cluster is appended to the cluster of
    its most frequent caller unless the result would pass MAX_CLUSTER_BYTES or be more than
    MAX_DENSITY_DEGRADATION times less dense than the caller's cluster; then the clusters, densest
    first. Callers and their hot callees end up next to each other, in as few cache lines and
    pages as the code allows. Names in `monolithic` count towards the share but are not listed."""
    hot = frame_path(own, sizes, unique, monolithic)
    members = {f: [f] for f in hot}
    leader = {f: f for f in hot}
    size = {f: max(1, sizes[f]) for f in hot}
    weight = {f: own[f] for f in hot}
    caller_of = {}
    for (a, b), n in calls.items():
        if a in leader and b in leader and n > caller_of.get(b, (None, 0))[1]:
            caller_of[b] = (a, n)
    for f in hot:
        if f not in caller_of:
            continue
        into, from_ = leader[caller_of[f][0]], leader[f]
        if into == from_ or size[into] + size[from_] > MAX_CLUSTER_BYTES:
            continue
        if (weight[into] + weight[from_]) / (size[into] + size[from_]) * MAX_DENSITY_DEGRADATION < weight[into] / size[into]:
            continue
        for g in members[from_]:
            leader[g] = into
        members[into] += members.pop(from_)
        size[into] += size.pop(from_)
        weight[into] += weight.pop(from_)
    clusters = sorted(members, key=lambda c: -weight[c] / size[c])
    return [f for c in clusters for f in members[c]]


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
    ap.add_argument("--load", help="touch-load (default: the one beside BINARY)")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds idle after each step")
    ap.add_argument("--observers", type=int, default=20)
    ap.add_argument("--sources", type=int, default=30, help="sources x 60 Hz in the load step")
    ap.add_argument("--load-seconds", type=int, default=10)
    ap.add_argument("--out", default=ORDER)
    ap.add_argument("--check", action="store_true",
                    help=f"write nothing: fail if the head of --out names less than {CHECK_SHARE:.0%} of the frame path")
    a = ap.parse_args()
    load = a.load or os.path.join(os.path.dirname(os.path.abspath(a.binary)), "touch-load")
    if not os.access(load, os.X_OK):
        sys.exit(f"no touch-load at {load}: build it (swift build -c release --product touch-load) or pass --load")
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
            url = f"ws://127.0.0.1:{port.group(1)}"
            if not a.check:
                time.sleep(a.settle)
                idle = dump(proc.pid, out, 1)
                observers = subprocess.Popen(
                    [sys.executable, os.path.join(os.path.dirname(HERE), "bench", "idle_ws.py"), "--url",
                     url, "--count", str(a.observers), "--sessions", "2",
                     "--timeout", "60"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                ready = json.loads(observers.stdout.readline() or "{}")
                if ready.get("connected") != a.observers:
                    sys.exit(f"observers did not connect: {ready}")
                time.sleep(a.settle)
                connected = dump(proc.pid, out, 2)
                observers.stdin.close()
                observers.wait(timeout=60)
            # The bench's ingest shape (bench.py ingest_load), fewer sources: under callgrind the
            # server runs some 50 times slower.
            # Only the steady part counts: the connections' set-up and teardown are not per frame.
            loading = subprocess.Popen([load, "--url", url, "-c", str(a.sources), "-r", "60", "--sessions",
                                        str(a.sources), "--observers", "1", "--raw", "--send-idle", "-d",
                                        f"{a.load_seconds + LOAD_SETTLE + 2}s", "-q"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(LOAD_SETTLE)
            # callgrind numbers its dumps 1, 2, ... as they come: --check made no idle ones.
            first = 1 if a.check else 3
            dump(proc.pid, out, first)
            time.sleep(a.load_seconds)
            loaded = dump(proc.pid, out, first + 1)
            if loading.wait(timeout=120) != 0:
                sys.exit("touch-load failed in the load step")
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        unique = unique_names(a.binary)
        own, calls = call_profile(loaded, "touch-relay")
        sizes = symbol_sizes(a.binary)
        if a.check:
            return check(frame_path(own, sizes, unique, monolithic_names()), a.out)
        idle_names = executed_functions(idle, "touch-relay")
        hot = hot_order(own, calls, sizes, unique, monolithic_names())
        listed = set(hot)
        rest = sorted({n for n in idle_names + executed_functions(connected, "touch-relay")
                       if n in unique and n not in listed})
    if len(idle_names) < 500:
        sys.exit(f"only {len(idle_names)} functions ran at start-up: not writing {a.out}")
    if len(hot) < 100:
        sys.exit(f"only {len(hot)} functions ran under load: not writing {a.out}")
    with open(a.out, "w") as f:
        f.write(HEADER)
        f.write("".join(n + "\n" for n in hot))
        f.write(REST_MARKER + "\n")
        f.write("".join(n + "\n" for n in rest))
    print(f"{len(hot)} functions of the frame path, then {len(rest)} of start-up, idle and connections "
          f"-> {os.path.relpath(a.out)}")


def check(hot, order_file):
    """`--check`: the share of `hot` (the frame path as callgrind saw it) that the head of
    `order_file` names; fails below CHECK_SHARE."""
    if len(hot) < 100:
        sys.exit(f"only {len(hot)} functions ran under load: the load step did not run")
    head = set(listed_head(order_file))
    missing = [f for f in hot if f not in head]
    share = 1 - len(missing) / len(hot)
    print(f"the head of {os.path.relpath(order_file)} ({len(head)} names) names {len(hot) - len(missing)} of the "
          f"{len(hot)} functions of the frame path: {share:.1%} (at least {CHECK_SHARE:.0%} wanted)")
    if share < CHECK_SHARE:
        print("the hottest of those it does not name:")
        for f in missing[:15]:
            print(f"  {f}")
        sys.exit("stale: regenerate it (tools/link/order.py, see its top) and relink")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Instructions per frame, counted with callgrind: the same each run, whatever else the machine
is doing, so a change of a few per cent shows where timed runs cannot see it.

  tools/bench/instructions.py BINARY [BINARY ...] [--sources 30] [--seconds 10]
                              [--samples-per-message N] [--fan-out N] [-- server flags]

Each server (debug info stripped into a copy: valgrind 3.19 cannot read Swift's DWARF 5) runs
under `valgrind --tool=callgrind` on loopback while touch-load (`.build-bench`, not under
valgrind) sends SOURCES x 60 Hz with idle frames, one raw observer each, for SECONDS. Prints the
instructions of the whole process and of the service loop (`ev_run` inclusive: every callback,
the core and the writes, without start-up) per frame sent, and writes the callgrind files to
tools/bench/results/ for `callgrind_annotate`. Takes about 30 s per binary.

With `--fan-out N`: one source at 120 Hz to N raw observers of its session instead (the bench's
fan-out shape), counted per delivery (a message that reached an observer)."""
import argparse, json, os, re, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOAD = os.path.join(ROOT, ".build-bench", "release", "touch-load")
RESULTS = os.path.join(ROOT, "tools", "bench", "results")


def count(binary, sources, seconds, flags, tag, tmp, samples_per_message=1, fan_out=0):
    stripped = os.path.join(tmp, f"touch-relay-{tag}")
    shutil.copy(binary, stripped)
    subprocess.run(["strip", "--strip-debug", stripped], check=True)
    out = os.path.join(RESULTS, f"callgrind-{tag}.out")
    # A fan-out's observers all come from loopback: the per-address and per-session caps are
    # lifted as the bench lifts them.
    caps = ["--max-observers-per-session", "100000", "--max-connections-per-address", "100000"] if fan_out else []
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", stripped, "--host", "127.0.0.1",
         "--port", "0", *caps, *flags], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        m = re.search(r"ws://127\.0\.0\.1:(\d+)", line)
        if not m:
            sys.exit(f"instructions: no port in the server's first line: {line!r}")
        report = os.path.join(tmp, f"load-{tag}.json")
        shape = (["-c", "1", "-r", "120", "--observers", str(fan_out), "--threads", "1"] if fan_out else
                 ["-c", str(sources), "-r", "60", "--sessions", str(sources), "--observers", "1"])
        subprocess.run([LOAD, "--url", f"ws://127.0.0.1:{m.group(1)}", *shape, "--raw", "--send-idle",
                        "-d", f"{seconds}s", "--samples-per-message", str(samples_per_message),
                        "--json", report, "-q"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(report) as f:
            run = json.load(f)
        frames = run["messagesReceived"] if fan_out else run["framesSent"]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", out], capture_output=True, text=True).stdout
    total = int(re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))
    loop = re.search(r"^\s*([\d,]+) \([\d. ]+%\)\s+\S*:ev_run\b", text, re.M)
    loop = int(loop.group(1).replace(",", "")) if loop else None
    return total, loop, frames


def main():
    argv = sys.argv[1:]
    flags = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description="Instructions per frame under callgrind (see the docstring).")
    p.add_argument("binaries", nargs="+")
    p.add_argument("--sources", type=int, default=30)
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--samples-per-message", type=int, default=1,
                   help="touch-load's: the same 60 Hz of samples, N to a frames message")
    p.add_argument("--fan-out", type=int, default=0, metavar="N",
                   help="one source at 120 Hz to N raw observers; counted per delivery")
    args = p.parse_args(argv)
    if not os.path.exists(LOAD):
        sys.exit(f"instructions: build touch-load first ({LOAD}): tools/bench/run builds it")
    os.makedirs(RESULTS, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for i, binary in enumerate(args.binaries):
            total, loop, frames = count(binary, args.sources, args.seconds, flags, str(i), tmp,
                                        args.samples_per_message, args.fan_out)
            per_loop = f"{loop / frames:,.0f}" if loop else "?"
            unit, one = ("deliveries", "delivery") if args.fan_out else ("frames", "frame")
            print(f"{binary}: {frames:,} {unit}; per {one}: "
                  f"{total / frames:,.0f} instructions in all, {per_loop} in the service loop "
                  f"(results/callgrind-{i}.out)", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Paired A/B of two server builds or settings, for changes smaller than this VM's noise.

Servers A and B run at the same time, both pinned to CPU 0, each under its own touch-load
(same load, both on CPU 1), so a slow spell of the VM hits both alike; the server's CPU is read
from /proc over the same window. Prints frames per server CPU-second of each and B / A per
pair, then their median. The order of starting alternates from pair to pair.

  tools/bench/paired.py [--pairs 4] [--sources 200 | --fanout 200] A B [-- touch-load flags...]

A and B are `BINARY` or `BINARY:FLAGS` (e.g. `.build-bench/release/touch-relay:--no-gestures`).
Two copies of the same binary read B / A = 0.99 ± 0.01 here (4 pairs, 200 sources each).
Both servers share one core, so the figures are for comparing, not the server's capacity.
`tools/bench/run`'s overhead scenario runs the same pairs (`bench.paired_rates`) for gestures
and metrics on / off.
"""
import argparse, os, statistics, sys, tempfile

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from bench import paired_rates  # noqa: E402  (tools/bench/bench.py, beside this file)
from relaytools import Lab  # noqa: E402  (tools/relaytools.py: bench put tools/ on sys.path)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOAD = os.path.join(ROOT, ".build-bench", "release", "touch-load")


def spec(text):
    """`BINARY` or `BINARY:FLAGS` as (binary, [flags])."""
    binary, _, flags = text.partition(":")
    return binary, flags.split()


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description="Paired A/B of two servers on one core (see the file's docstring).")
    p.add_argument("--pairs", type=int, default=4)
    p.add_argument("--sources", type=int, default=200, help="sources x 60 Hz on each server")
    p.add_argument("--fanout", type=int, metavar="N",
                   help="instead: 1 source x 120 Hz to N raw observers on each server (deliveries per server CPU-second)")
    p.add_argument("a")
    p.add_argument("b")
    args = p.parse_args(argv)
    if not os.path.exists(LOAD):
        sys.exit(f"paired: build touch-load first ({LOAD}): tools/bench/run builds it")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        # Where the servers' logs go; the command lines are not printed.
        lab = Lab(None, tmp, ROOT, quiet=True)
        for k in range(args.pairs):
            fa, fb = paired_rates(lab, LOAD, k, spec(args.a), spec(args.b), args.sources, extra, "paired",
                                  fanout=args.fanout)
            ratios.append(fb / fa)
            unit = "frames" if args.fanout is None else "deliveries"
            print(f"pair {k + 1}: A {fa:,.0f}  B {fb:,.0f} {unit} per server CPU-second  B / A {fb / fa:.3f}", flush=True)
    print(f"B / A: median {statistics.median(ratios):.3f}, mean {statistics.mean(ratios):.3f}, "
          f"sd {statistics.pstdev(ratios):.3f} over {len(ratios)} pairs")


if __name__ == "__main__":
    main()

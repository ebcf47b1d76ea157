#!/usr/bin/env python3
"""Names the tests a Swift Testing log shows as started and not yet ended.

    .ci/unfinished.py LOG...

.ci/run prints this for a stage that outlives its budget: the tests still running are where
a hang is. A test ends with "passed", "failed" or "skipped" (a parameterized one once for
all its cases).
"""
import re
import sys

STARTED = re.compile(r"Test (.+?) started\.$")
ENDED = re.compile(r"Test (.+?)(?: with \d+ test cases?)? (?:passed|failed|skipped)\b")


def unfinished(lines):
    running = {}
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        started = STARTED.search(line)
        # A parameterized test's cases say when they start, never when they end; the run
        # itself ends last.
        if started and not started.group(1).startswith("case ") and started.group(1) != "run":
            running[started.group(1)] = number
            continue
        ended = ENDED.search(line)
        if ended:
            running.pop(ended.group(1), None)
    return sorted(running.items(), key=lambda item: item[1])


def main(paths):
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                left = unfinished(f)
        except OSError as error:
            print(f"{path}: {error.strerror}")
            continue
        print(f"{path}: {len(left)} test(s) started and not ended")
        for name, number in left:
            print(f"  {name} (started on line {number})")


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Prints a `swift test --filter` / `--skip` pattern matching every test suite declared in a
test directory (default: Tests/RelayServerTests/Cluster), for tools/sanitize/run's cluster pass.

    suites.py [DIR [MODULE]]     e.g. RelayServerTests\\.(ClusterTests|SharedPortClusterTests)\\b

A suite is a top-level type (struct, class, enum, actor, or an extension of one) of a file in
DIR with a `@Test` in it or marked `@Suite`: swift-testing's rules, so a suite added to the
directory is in the pattern without anyone listing it. Exits 1 if there is none (a directory
renamed would otherwise make the cluster pass run nothing and pass).
"""
import os
import re
import sys

TOP_LEVEL = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|fileprivate|private|final|nonisolated)\s+)*"
    r"(struct|class|enum|actor|extension)\s+(\w+)")


def suites(directory):
    found = set()
    for dirpath, _, files in os.walk(directory):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            current, attribute_above = None, False
            with open(os.path.join(dirpath, name), errors="replace") as f:
                for line in f:
                    m = TOP_LEVEL.match(line)
                    if m:
                        current = m.group(2)
                        if attribute_above or "@Suite" in line[: m.start(1)]:
                            found.add(current)
                        attribute_above = False
                    elif line.startswith("@"):
                        # An attribute on a line of its own, the declaration below it.
                        attribute_above = attribute_above or line.startswith("@Suite")
                    elif current and re.match(r"^\s+@Test\b", line):
                        found.add(current)
    return sorted(found)


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "Tests/RelayServerTests/Cluster"
    module = sys.argv[2] if len(sys.argv) > 2 else os.path.basename(os.path.dirname(os.path.abspath(directory)))
    names = suites(directory)
    if not names:
        sys.exit(f"no test suite in {directory}")
    # \b: a test's id is "Module.Suite/test()", a suite's "Module.Suite".
    print(f"{re.escape(module)}\\.({'|'.join(names)})\\b")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Reads the sanitizer report files of one `tools/sanitize/run` pass and says which count.

    reports.py DIR

Every process of the run (the test process and each touch-relay binary the tests start)
writes its reports to DIR/<kind>.<executable>.<pid> (`log_path` with `log_exe_name=1`), so a
report from a binary whose stderr a test captured is found too. Prints each report that
counts and exits 1 if there is any.

One kind is known and not counted: a leak in the touch-relay binary whose allocation was made
by libwebsockets itself (every frame after the allocator in libwebsockets.so). libwebsockets
4.1 leaks about 100 bytes each time lws_create_context fails (lws_smd_register,
lws_plugins_init), which the binary does on a start-up error (a busy port, an address not of
this machine). A leak of the test process is always counted, whatever allocated it: the server
runs in-process there too, and a context it forgets to destroy would show there.
"""
import os
import re
import sys

LEAK = re.compile(r"^(Direct|Indirect) leak of (\d+) byte", re.M)


def leak_entries(text):
    """The leak entries of an LSan report: (bytes, [frame lines])."""
    entries = []
    for block in re.split(r"\n\s*\n", text):
        m = LEAK.search(block)
        if m:
            frames = [l.strip() for l in block.splitlines() if re.match(r"\s*#\d+ ", l)]
            entries.append((int(m.group(2)), frames))
    return entries


def allocated_by_libwebsockets(frames):
    return len(frames) >= 2 and all("libwebsockets.so" in f for f in frames[1:])


def main():
    directory = sys.argv[1]
    counted, known = [], []
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), errors="replace") as f:
            text = f.read()
        if not text.strip():
            continue
        exe = name.split(".")[1] if name.count(".") >= 2 else "?"
        entries = leak_entries(text)
        only_leaks = "ERROR: LeakSanitizer" in text and text.count("ERROR:") + text.count("WARNING:") == 1
        if exe == "touch-relay" and only_leaks and entries and all(allocated_by_libwebsockets(f) for _, f in entries):
            known.append((name, sum(b for b, _ in entries)))
        else:
            counted.append((name, text))
    for name, size in known:
        print(f"  not counted: {name}: {size} bytes allocated inside libwebsockets "
              "(lws 4.1's leak on a failed lws_create_context)")
    for name, text in counted:
        print(f"--- {name}", file=sys.stderr)
        print("\n".join(text.strip().splitlines()[:80]), file=sys.stderr)
    print(f"  {len(counted)} sanitizer report file(s) counted, {len(known)} known")
    return 1 if counted else 0


if __name__ == "__main__":
    sys.exit(main())

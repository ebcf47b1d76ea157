"""Shared by tools/faults and tools/soak: starts a release touch-relay through tools/bench's
Server (127.0.0.1, port 0, the limits raised as the benchmarks raise them) and reads
/proc for its CPU, RSS and descriptors (Server's own helpers)."""

import os
import shlex
import sys
import types

sys.dont_write_bytecode = True  # no __pycache__ in tools/bench or here
_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_here, "..", "bench"))

from bench import Server  # noqa: E402  (tools/bench/bench.py)


class Context:
    """What bench.Server expects of its `bench` argument: the binary, a work directory for
    the server's stderr, and a note() that records each command line."""

    def __init__(self, relay, work, root):
        self.a = types.SimpleNamespace(relay=relay)
        self.work = work
        self.root = root
        self.commands = []

    def rel(self, s):
        return s.replace(self.root + "/", "").replace(self.work + "/", "$TMP/")

    def note(self, cmd):
        line = " ".join(shlex.quote(c) for c in cmd)
        self.commands.append(self.rel(line))
        print(f"  $ {self.rel(line)}", flush=True)


def start(ctx, tag, flags=()):
    return Server(ctx, list(flags), tag)


def threads(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0
